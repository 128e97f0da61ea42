/**
 * Delivery of job items (`"store": "s3"` on POST /jobs): the jobs area calls `check` at
 * submission, `remember` once the job exists, and `deliverItem` in its worker after an item's
 * file is written and before its result is recorded, so an upload that fails after its retries
 * fails the item with the storage's error. `delivery.succeeded` and `delivery.failed` events go
 * to the job's webhook (or every endpoint subscribed), like the render events.
 */
import type { JobEventSink } from '../jobs/events.js';
import { DeliveryError } from './errors.js';
import { hostName } from './paths.js';
import type { StoreRequest } from './request.js';
import type { DeliveryService } from './service.js';
import type { TargetRecord, TargetStore } from './store.js';

export interface JobDelivery {
  /** The target a submission names (400 as the synchronous routes word it); its id. */
  check(accountId: string, store: NonNullable<StoreRequest>): Promise<string>;
  remember(jobId: string, accountId: string, targetId: string): Promise<void>;
  /**
   * Uploads the item when its job asked for delivery: null when it did not, else the error to
   * fail the item with (null error: stored). `onUpload` is called as the upload (or the wait
   * for the account's upload slot) begins: the worker lends its slot meanwhile.
   */
  deliverItem(
    job: { id: string; accountId: string; webhook: string | null },
    item: { index: number; kind: string; request: string },
    rendered: { body: Buffer; contentType: string; etag: string },
    opts?: { signal?: AbortSignal; onUpload?: () => void },
  ): Promise<{ error: string | null } | null>;
}

/** How long a job's target is reused between its items. */
const CACHE_MS = 3000;

export function createJobDelivery(deps: {
  service: Pick<DeliveryService, 'resolve' | 'deliver'>;
  store: Pick<TargetStore, 'setJobTarget' | 'jobTarget' | 'getTarget'>;
  events?: JobEventSink;
  now?: () => number;
}): JobDelivery {
  const now = deps.now ?? Date.now;
  const seen = new Map<string, { target: TargetRecord | null | undefined; at: number }>();
  /** The job's target: undefined when it asked for none, null when it was deleted since. */
  const targetOf = async (jobId: string, accountId: string) => {
    const hit = seen.get(jobId);
    if (hit && now() - hit.at < CACHE_MS) return hit.target;
    const id = await deps.store.jobTarget(jobId);
    const target = id === undefined ? undefined : ((await deps.store.getTarget(accountId, id)) ?? null);
    if (seen.size > 10_000) seen.clear();
    seen.set(jobId, { target, at: now() });
    return target;
  };
  const publish = async (
    accountId: string,
    webhook: string | null,
    type: 'delivery.succeeded' | 'delivery.failed',
    data: { jobId: string; index: number } & Record<string, unknown>,
  ) => {
    // The id is the item's and the outcome's, not a fresh one: an item whose node died after the
    // upload runs again elsewhere and publishes again, and the webhooks area stores one id once,
    // so the receiver gets one message (one webhook-id) per outcome, not one per attempt.
    const id = `dlv_${data.jobId}_${data.index}_${type === 'delivery.succeeded' ? 'ok' : 'failed'}`;
    try {
      const events = deps.events;
      if (!events) return;
      // Asked first, from its cache of a few seconds (as the render events are): publishing
      // reads the account's endpoints from the database, per item, to find none most of the time.
      if (events.wants && !(await events.wants(accountId, type, webhook ?? undefined))) return;
      await events.publish(accountId, { id, type, data, ...(webhook ? { endpointId: webhook } : {}) });
    } catch {
      // As for render events: a delivery that could not be announced is still a delivery.
    }
  };

  return {
    async check(accountId, store) {
      return (await deps.service.resolve(accountId, store.storage)).id;
    },
    remember: (jobId, accountId, targetId) => deps.store.setJobTarget(jobId, accountId, targetId),
    async deliverItem(job, item, rendered, opts = {}) {
      const target = await targetOf(job.id, job.accountId);
      if (target === undefined) return null;
      const base = { jobId: job.id, index: item.index };
      if (target === null) {
        const error = 'the storage target of this job was deleted';
        await publish(job.accountId, job.webhook, 'delivery.failed', {
          ...base,
          code: 'TargetDeleted',
          error,
        });
        return { error };
      }
      const source = sourceOf(item);
      opts.onUpload?.();
      try {
        const stored = await deps.service.deliver(
          {
            accountId: job.accountId,
            target,
            kind: 'job',
            body: rendered.body,
            contentType: rendered.contentType,
            etag: rendered.etag,
            values: { job: job.id, index: item.index, id: `${job.id}-${item.index}`, name: source.name },
            metadata: {
              'cardshot-job': job.id,
              'cardshot-index': String(item.index),
              'cardshot-source': source.value,
            },
          },
          'wait',
          opts.signal,
        );
        await publish(job.accountId, job.webhook, 'delivery.succeeded', {
          ...base,
          storageId: target.id,
          ...stored,
        });
        return { error: null };
      } catch (err) {
        if (!(err instanceof DeliveryError)) throw err;
        const error = `could not store the result in storage ${target.id}: ${err.message}`;
        await publish(job.accountId, job.webhook, 'delivery.failed', {
          ...base,
          storageId: target.id,
          code: err.code,
          error,
        });
        return { error };
      }
    },
  };
}

/** `{name}` and the source metadata of an item: its template, or its page's URL and host. */
function sourceOf(item: { kind: string; request: string }): { name: string; value: string } {
  try {
    const req = JSON.parse(item.request) as Record<string, unknown>;
    if (typeof req.url === 'string') return { name: hostName(req.url), value: req.url };
    if (typeof req.template === 'string') return { name: req.template, value: req.template };
  } catch {
    // An unreadable request still delivers, under a generic name.
  }
  return { name: item.kind, value: item.kind };
}
