/**
 * Result files under the data dir: `<dir>/<account>/<job>/<index>-<etag>.<ext>`. A file is
 * written under a temporary name and renamed into place, so a reader never sees half a file
 * and a full disk leaves nothing half-written behind; the ETag in the name means a second run
 * of an item (its node died after the render) writes beside the first, never over the file the
 * database points at, and the loser's file is removed.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, type ReadStream, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../errors.js';

/** File name extensions by content type. */
const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/avif': 'avif',
};

/** What a result file is named in a zip and on disk. */
export function extensionOf(contentType: string): string {
  return EXTENSIONS[contentType] ?? 'bin';
}

export interface ResultFiles {
  /** Writes `body` and returns its path relative to the results directory. A full disk is a clear AppError. */
  write(
    p: { accountId: string; jobId: string; index: number; etag: string; contentType: string },
    body: Buffer,
  ): Promise<string>;
  read(file: string): ReadStream;
  /** Removes one file (a second run's, whose result was not kept). */
  remove(file: string): Promise<void>;
  /** Removes a job's directory (retention). */
  removeJob(accountId: string, jobId: string): Promise<void>;
}

/**
 * Results up to this size are written synchronously: a card (10–100 KB) takes tens of
 * microseconds to write, while the asynchronous open, write, close and rename each cost a round
 * trip through libuv's thread pool and a wake-up of the event loop, which on a loaded 2-core
 * machine was a tenth of a job item's main-thread time. Larger ones (full-page captures) go
 * through the thread pool so they never stall requests.
 */
const SYNC_WRITE_BYTES = 256 * 1024;

/** Message of an item whose result could not be written because the disk is full. */
export const DISK_FULL = 'could not store the result: the disk holding the results is full';

/** Result files under `dir` (CARDSHOT_DATA_DIR/jobs). */
export function createResultFiles(dir: string): ResultFiles {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_');
  // Directories made by this process (a job's 10,000 items need one mkdir, not 10,000).
  const made = new Set<string>();
  return {
    async write(p, body) {
      const rel = path.join(
        safe(p.accountId),
        safe(p.jobId),
        `${p.index}-${safe(p.etag)}.${extensionOf(p.contentType)}`,
      );
      const full = path.join(dir, rel);
      const tmp = `${full}.${randomBytes(4).toString('hex')}.tmp`;
      try {
        const parent = path.dirname(full);
        if (!made.has(parent)) {
          await mkdir(parent, { recursive: true, mode: 0o700 });
          made.add(parent);
        }
        if (body.length <= SYNC_WRITE_BYTES) {
          try {
            writeFileSync(tmp, body, { mode: 0o600 });
          } catch (err) {
            // Removed meanwhile (another node's retention sweep of a job deleted and resubmitted?): once more.
            if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
            await mkdir(parent, { recursive: true, mode: 0o700 });
            writeFileSync(tmp, body, { mode: 0o600 });
          }
          renameSync(tmp, full);
          return rel;
        }
        await writeFile(tmp, body, { mode: 0o600 }).catch(async (err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOENT') throw err;
          await mkdir(parent, { recursive: true, mode: 0o700 });
          await writeFile(tmp, body, { mode: 0o600 });
        });
        await rename(tmp, full);
        return rel;
      } catch (err) {
        try {
          unlinkSync(tmp);
        } catch {
          // Never written, or gone.
        }
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOSPC' || code === 'EDQUOT') {
          throw new AppError('unavailable', DISK_FULL, { detail: `${full}: ${code}`, cause: err });
        }
        throw err;
      }
    },
    read(file) {
      return createReadStream(path.join(dir, file));
    },
    async remove(file) {
      await rm(path.join(dir, file), { force: true });
    },
    async removeJob(accountId, jobId) {
      const jobDir = path.join(dir, safe(accountId), safe(jobId));
      made.delete(jobDir);
      await rm(jobDir, { recursive: true, force: true });
    },
  };
}
