/** The jobs API's JSON shapes (issue 28 §1), built from records and the links' origin. */
import type { ResultLinks } from './links.js';
import type { ItemCounts, ItemRecord, JobRecord } from './store/types.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Paths of a job's resources (relative to the origin). */
export const paths = {
  job: (id: string) => `/jobs/${id}`,
  item: (id: string, index: number) => `/jobs/${id}/items/${index}`,
  zip: (id: string) => `/jobs/${id}/results.zip`,
};

/** POST /jobs's answer. */
export function submittedView(job: JobRecord, origin: string) {
  return { id: job.id, status: job.status, items: job.total, statusUrl: `${origin}${paths.job(job.id)}` };
}

/** GET /jobs/:id (and each entry of GET /jobs, and a job.* event's data). */
export function jobView(job: JobRecord, counts: ItemCounts, origin: string, links: ResultLinks) {
  return {
    id: job.id,
    status: job.status,
    items: job.total,
    counts,
    createdAt: iso(job.createdAt),
    startedAt: iso(job.startedAt),
    completedAt: iso(job.completedAt),
    expiresAt: iso(job.expiresAt),
    // Signed: a webhook receiver fetches it without a key, until the job is deleted.
    resultsUrl: `${origin}${links.sign(paths.zip(job.id), job.expiresAt)}`,
    webhook: job.webhook,
    metadata: job.metadata,
  };
}

/** One entry of GET /jobs/:id/items (and a render.* event's data). */
export function itemView(job: JobRecord, item: ItemRecord, origin: string, links: ResultLinks) {
  return {
    index: item.index,
    status: item.status,
    kind: item.kind,
    ...(item.error !== null ? { error: item.error } : {}),
    result: item.result
      ? {
          url: `${origin}${links.sign(paths.item(job.id, item.index), job.expiresAt)}`,
          contentType: item.result.contentType,
          bytes: item.result.bytes,
          // As the ETag header writes it (quoted), so a client compares the two as they are.
          etag: `"${item.result.etag}"`,
          width: item.result.width,
          height: item.result.height,
        }
      : null,
  };
}
