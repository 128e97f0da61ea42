import { readFile } from 'node:fs/promises';
import type { Cardshot } from '../../client/cardshot.js';
import type { Job, JobInput, SubmittedJob } from '../../client/job-types.js';
import { UsageError } from '../admin.js';
import { printable } from '../printable.js';
import { createProgress } from '../progress.js';
import type { ShotIo } from '../shot/io.js';
import { saveResults } from './save.js';
import { doneOf, progressLine } from './show.js';

/** What `jobs submit` was asked to do. */
export interface SubmitArgs {
  file: string;
  wait: boolean;
  outDir: string | undefined;
  zip: boolean;
  webhook: string | undefined;
  idempotencyKey: string | undefined;
}

/** Failed items listed after a run; the rest are counted (`jobs results ID --status failed`). */
const SHOW_FAILED = 20;

/**
 * `jobs submit`: sends the file as a job (CSV as it is, JSON as items or as a whole job body),
 * then with --wait (or --out-dir) follows it to its end, lists failed items and saves the
 * images. Exit 0 when every item succeeded (or, without waiting, when the job was accepted),
 * 1 when any failed or the job was canceled.
 */
export async function submitJob(client: Cardshot, args: SubmitArgs, io: ShotIo): Promise<number> {
  const submitted = await send(client, args, io);
  const verb = submitted.created ? 'Submitted' : 'Already submitted (same Idempotency-Key):';
  io.stdout.write(`${verb} ${submitted.id} with ${submitted.items} items\n`);
  if (!args.wait && args.outDir === undefined) {
    io.stdout.write(`Follow it: npx cardshot jobs get ${submitted.id}   (${submitted.statusUrl})\n`);
    return 0;
  }
  const started = performance.now();
  const job = await follow(client, submitted.id, io);
  const secs = ((performance.now() - started) / 1000).toFixed(1);
  io.stdout.write(
    `Job ${job.id} ${job.status} in ${secs} s: ${job.counts.succeeded} of ${job.items} items succeeded${job.counts.failed ? `, ${job.counts.failed} failed` : ''}${job.counts.canceled ? `, ${job.counts.canceled} canceled` : ''}\n`,
  );
  await listFailed(client, job, io);
  if (args.outDir !== undefined && job.counts.succeeded > 0) {
    await saveResults(client, job, { dir: args.outDir, zip: args.zip }, io);
  }
  return job.status === 'completed' && job.counts.failed === 0 ? 0 : 1;
}

async function send(client: Cardshot, args: SubmitArgs, io: ShotIo): Promise<SubmittedJob> {
  const text = args.file === '-' ? await io.readStdin() : await readText(args.file);
  const opts = args.idempotencyKey === undefined ? {} : { idempotencyKey: args.idempotencyKey };
  if (/\.csv$/i.test(args.file)) {
    return client.jobs.submitCsv(text, { ...opts, ...(args.webhook ? { webhook: args.webhook } : {}) });
  }
  return client.jobs.submit(jobBody(text, args), opts);
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

/** A JSON file holds the items (an array) or a whole job body (`{"items", "webhook", "metadata"}`). */
function jobBody(text: string, args: SubmitArgs): JobInput {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new UsageError(`${args.file} is not JSON (${(err as Error).message}); a .csv file is sent as CSV`);
  }
  const body = (Array.isArray(parsed) ? { items: parsed } : parsed) as JobInput;
  if (typeof body !== 'object' || body === null) {
    throw new UsageError(`${args.file} must hold a list of items or {"items": [...]}`);
  }
  return args.webhook === undefined ? body : { ...body, webhook: args.webhook };
}

/** Polls the job to its end: a bar on a terminal, a line per change otherwise. */
export async function follow(client: Cardshot, id: string, io: ShotIo): Promise<Job> {
  let progress: ReturnType<typeof createProgress> | undefined;
  let last = '';
  const job = await client.jobs.wait(id, {
    intervalMs: 250,
    maxIntervalMs: 2000,
    onProgress: (j) => {
      progress ??= createProgress(j.items, io.stderr, io.stdout);
      progress.tick(doneOf(j), j.counts.failed);
      const line = progressLine(j);
      if (line !== last) progress.line(line);
      last = line;
    },
  });
  progress?.finish();
  return job;
}

/** Lists the first failed items of an ended job, with their errors, and counts the rest. */
export async function listFailed(client: Cardshot, job: Job, io: ShotIo): Promise<void> {
  if (job.counts.failed === 0) return;
  let shown = 0;
  for await (const item of client.jobs.allItems(job.id, { status: 'failed', limit: SHOW_FAILED })) {
    io.stdout.write(`  item ${item.index}: ${printable(item.error ?? 'failed')}\n`);
    if (++shown >= SHOW_FAILED) break;
  }
  if (job.counts.failed > shown) {
    io.stdout.write(
      `  … and ${job.counts.failed - shown} more: npx cardshot jobs results ${job.id} --status failed\n`,
    );
  }
}
