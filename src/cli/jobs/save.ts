import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Cardshot } from '../../client/cardshot.js';
import type { Job, JobItem } from '../../client/job-types.js';
import { FILE_EXTENSION, formatOf } from '../../client/options.js';
import { printable } from '../printable.js';
import { type ShotIo, sizeText } from '../shot/io.js';

/** Downloads at once: enough to hide each request's latency, few enough to stay polite. */
const PARALLEL = 4;

/**
 * Saves a job's finished images into `dir`: the zip of them all (`<job id>.zip`), or each item
 * as `<index>.<ext>`, the index zero-padded so the files sort in the job's order. Streams every
 * file to disk (a large zip never sits in memory). Returns how many files it wrote.
 */
export async function saveResults(
  client: Cardshot,
  job: Job,
  opts: { dir: string; zip: boolean },
  io: ShotIo,
): Promise<number> {
  await mkdir(opts.dir, { recursive: true });
  if (opts.zip) {
    const file = path.join(opts.dir, `${job.id}.zip`);
    const got = await client.jobs.download(job.id, file);
    io.stdout.write(`Wrote ${printable(file)} (${sizeText(got.bytes)}, ${job.counts.succeeded} images)\n`);
    return 1;
  }
  const items: JobItem[] = [];
  for await (const item of client.jobs.allItems(job.id, { status: 'succeeded', limit: 100 }))
    items.push(item);
  const width = String(Math.max(0, job.items - 1)).length;
  let next = 0;
  let bytes = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      const ext = FILE_EXTENSION[formatOf(item.result?.contentType ?? null).format];
      const file = path.join(opts.dir, `${String(item.index).padStart(width, '0')}.${ext}`);
      // Awaited first: `bytes += await …` would read `bytes` before the wait and lose the sums
      // of the downloads that finished meanwhile.
      const got = await client.jobs.download(job.id, file, { index: item.index });
      bytes += got.bytes;
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, worker));
  const dir = printable(opts.dir.replace(/\/+$/, ''));
  io.stdout.write(`Wrote ${items.length} images (${sizeText(bytes)}) into ${dir}/\n`);
  return items.length;
}
