import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Cardshot } from '../../client/cardshot.js';
import type { ImageFormat } from '../../client/options.js';
import { printable } from '../printable.js';
import { createProgress } from '../progress.js';
import type { ShotOptions } from './args.js';
import { type BatchEntry, batchFileNames, parseBatchFile } from './batch-file.js';
import { describeFailure, type ShotIo, sizeText } from './io.js';

/** What a batch run needs besides the client. */
export interface BatchJob {
  /** The batch file, or `-` for standard input. */
  file: string;
  outDir: string;
  options: ShotOptions;
  format: ImageFormat;
  concurrency: number;
}

interface Failure {
  entry: BatchEntry;
  reason: string;
  /** The page's own 4xx/5xx status: its image was saved, but it shows an error page. */
  pageStatus?: number;
}

/**
 * Captures every URL of a batch file into `outDir`, `concurrency` at a time (the server bounds
 * each account's share, and the client waits out a 429's Retry-After before trying again).
 * Returns the exit status: 0 when every page was written, 1 when any failed or answered 4xx/5xx
 * (its image is kept, but it is a picture of an error page), 2 when the file cannot be read.
 * Everything printed that came from the file or the server goes through `printable`.
 */
export async function captureBatch(client: Cardshot, job: BatchJob, io: ShotIo): Promise<number> {
  let entries: BatchEntry[];
  try {
    entries = parseBatchFile(job.file === '-' ? await io.readStdin() : await readFile(job.file, 'utf8'));
  } catch (err) {
    io.stderr.write(`cardshot shot: cannot read ${job.file}: ${(err as Error).message}\n`);
    return 2;
  }
  if (entries.length === 0) {
    io.stderr.write(`cardshot shot: ${job.file} holds no URLs (one per line; # starts a comment)\n`);
    return 2;
  }
  const names = batchFileNames(entries, job.format);
  await mkdir(job.outDir, { recursive: true });
  const progress = createProgress(entries.length, io.stderr, io.stdout);
  const failures: Failure[] = [];
  const started = performance.now();
  let next = 0;
  let done = 0;

  const captureOne = async (i: number) => {
    const entry = entries[i]!;
    const file = path.join(job.outDir, names[i]!);
    const t0 = performance.now();
    try {
      const shot = await client.screenshot({ ...job.options, url: entry.url } as Parameters<
        Cardshot['screenshot']
      >[0]);
      if (shot.notModified)
        throw new Error('the server answered 304 Not Modified to a request without an ETag');
      await writeFile(file, shot.image);
      const secs = ((performance.now() - t0) / 1000).toFixed(1);
      const status = shot.targetStatus ?? 200;
      // The column is `ok` or the page's error status, both six wide, so the URLs line up.
      const mark = status >= 400 ? String(status).padEnd(6) : 'ok    ';
      progress.line(
        `${mark}${printable(entry.url)} -> ${printable(file)} (${sizeText(shot.image.length)}, ${secs} s, ${shot.cache})`,
      );
      if (status >= 400) {
        failures.push({
          entry,
          reason: `the page answered HTTP ${status} (saved as ${file})`,
          pageStatus: status,
        });
      }
    } catch (err) {
      const reason = describeFailure(err);
      failures.push({ entry, reason });
      progress.line(`FAIL  ${printable(entry.url)} (line ${entry.line}): ${printable(reason)}`);
    }
    progress.tick(++done, failures.length);
  };
  const worker = async () => {
    while (next < entries.length) await captureOne(next++);
  };
  await Promise.all(Array.from({ length: Math.min(job.concurrency, entries.length) }, worker));
  progress.finish();

  const secs = ((performance.now() - started) / 1000).toFixed(1);
  const dir = printable(job.outDir.replace(/\/+$/, ''));
  const errorPages = failures.filter((f) => f.pageStatus !== undefined).length;
  const failed = failures.length - errorPages;
  io.stdout.write(
    `Captured ${entries.length - failed} of ${entries.length} pages into ${dir}/ in ${secs} s${summaryTail(failed, errorPages)}\n`,
  );
  for (const f of failures.sort((a, b) => a.entry.line - b.entry.line)) {
    io.stdout.write(`  line ${f.entry.line} ${printable(f.entry.url)}: ${printable(f.reason)}\n`);
  }
  return failures.length ? 1 : 0;
}

/** `; 1 failed, 2 answered 4xx/5xx:` (the list follows), or nothing when all went well. */
function summaryTail(failed: number, errorPages: number): string {
  const parts = [failed ? `${failed} failed` : '', errorPages ? `${errorPages} answered 4xx/5xx` : ''].filter(
    Boolean,
  );
  return parts.length ? `; ${parts.join(', ')}:` : '';
}
