import type { Job, JobItem } from '../../client/job-types.js';
import { table } from '../admin.js';
import { printable } from '../printable.js';
import { sizeText } from '../shot/io.js';

/** Items that have ended (succeeded, failed or canceled): how far the bar is filled. */
export function doneOf(job: Job): number {
  return job.counts.succeeded + job.counts.failed + (job.counts.canceled ?? 0);
}

/** `running   7/10 done, 1 failed, 2 queued`: one line of progress (done: succeeded or failed). */
export function progressLine(job: Job): string {
  const parts = [`${job.counts.succeeded + job.counts.failed}/${job.items} done`];
  if (job.counts.failed) parts.push(`${job.counts.failed} failed`);
  if (job.counts.running) parts.push(`${job.counts.running} running`);
  if (job.counts.queued) parts.push(`${job.counts.queued} queued`);
  if (job.counts.canceled) parts.push(`${job.counts.canceled} canceled`);
  return `${job.status.padEnd(9)} ${parts.join(', ')}`;
}

/** `jobs get`: the job in a few labelled lines. */
export function jobText(job: Job): string {
  const rows = [
    ['Job', job.id],
    ['Status', progressLine(job).replace(/ +/, ' ')],
    ['Created', job.createdAt],
    ['Started', job.startedAt ?? '-'],
    ['Completed', job.completedAt ?? '-'],
    ['Kept until', job.expiresAt],
    ['Webhook', job.webhook ?? '-'],
  ];
  if (job.metadata) rows.push(['Metadata', printable(JSON.stringify(job.metadata))]);
  rows.push(['Results', job.resultsUrl]);
  return rows.map(([k, v]) => `${`${k}:`.padEnd(12)}${v}`).join('\n');
}

/** `jobs list`: one row per job. */
export function jobsTable(jobs: readonly Job[]): string {
  return table([
    ['ID', 'STATUS', 'ITEMS', 'SUCCEEDED', 'FAILED', 'CREATED'],
    ...jobs.map((j) => [
      j.id,
      j.status,
      String(j.items),
      String(j.counts.succeeded),
      String(j.counts.failed),
      j.createdAt,
    ]),
  ]);
}

/** `jobs results`: one row per item, with its size or its error. */
export function itemsTable(items: readonly JobItem[]): string {
  return table([
    ['INDEX', 'STATUS', 'KIND', 'RESULT'],
    ...items.map((i) => [
      String(i.index),
      i.status,
      i.kind,
      i.result
        ? `${i.result.width}×${i.result.height} ${i.result.contentType}, ${sizeText(i.result.bytes)}`
        : printable(i.error ?? ''),
    ]),
  ]);
}
