import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Cardshot } from '../../client/cardshot.js';
import type { ImageFormat } from '../../client/options.js';
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
}

/**
 * Captures every URL of a batch file into `outDir`, `concurrency` at a time (the server bounds
 * each account's share, and the client waits out a 429's Retry-After before trying again).
 * Returns the exit status: 0 when every page was written, 1 when any failed, 2 when the file
 * cannot be read.
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
      progress.line(
        `ok    ${entry.url} -> ${file} (${sizeText(shot.image.length)}, ${secs} s, ${shot.cache})`,
      );
    } catch (err) {
      const reason = describeFailure(err);
      failures.push({ entry, reason });
      progress.line(`FAIL  ${entry.url} (line ${entry.line}): ${reason}`);
    }
    progress.tick(++done, failures.length);
  };
  const worker = async () => {
    while (next < entries.length) await captureOne(next++);
  };
  await Promise.all(Array.from({ length: Math.min(job.concurrency, entries.length) }, worker));
  progress.finish();

  const secs = ((performance.now() - started) / 1000).toFixed(1);
  const dir = job.outDir.replace(/\/+$/, '');
  io.stdout.write(
    `Captured ${entries.length - failures.length} of ${entries.length} pages into ${dir}/ in ${secs} s`,
  );
  io.stdout.write(failures.length ? `; ${failures.length} failed:\n` : '\n');
  for (const f of failures.sort((a, b) => a.entry.line - b.entry.line)) {
    io.stdout.write(`  line ${f.entry.line} ${f.entry.url}: ${f.reason}\n`);
  }
  return failures.length ? 1 : 0;
}
