/**
 * The jobs API's policy, apart from HTTP: submit (validate every item, check the plan and the
 * account's waiting items, store, queue), read, list, cancel; and the sweep that deletes jobs
 * past their retention and queues the items of jobs whose node died while queueing them.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { MAX_JOB_ITEMS } from '../auth/plan-jobs.js';
import type { Plan } from '../auth/plans.js';
import type { JobDelivery } from '../delivery/jobs.js';
import { AppError } from '../errors.js';
import type { ItemCredentials } from './credentials.js';
import type { JobEvent, JobEventSink } from './events.js';
import { createGroupLimits, type GroupLimits } from './group-limits.js';
import { type ItemParsers, validateItems } from './items.js';
import type { JobQueue, NewTask } from './queue/types.js';
import type { ResultFiles } from './results.js';
import type { ItemCounts, ItemRecord, ItemStatus, JobCursor, JobRecord, JobStore } from './store/types.js';
import { ITEM_QUEUE, type ItemTask } from './worker.js';

/** An Idempotency-Key answers the same job for this long. */
export const IDEMPOTENCY_MS = 24 * 3_600_000;
/** metadata is echoed in every job event, whose body must stay under 20 KB. */
export const MAX_METADATA_BYTES = 4096;
const DAY_MS = 86_400_000;
const STALE_RUNNING_MS = 30 * 60_000;
/** The failure of an item whose runs were all lost with their nodes. */
export const LOST = 'the item was lost: the node running it stopped each time it ran';

/** A submission as the route read it. */
export interface Submission {
  items: readonly unknown[];
  /** 'body' for JSON items, 'query' for CSV rows (text cells). */
  source: 'body' | 'query';
  webhook?: string;
  metadata?: Record<string, unknown>;
  /** `"store": "s3"`: each succeeded item is uploaded to this target too (issue 31 §3). */
  store?: { storage?: string };
}

export interface Caller {
  accountId: string;
  plan: Plan;
}

export interface JobService {
  /** 202 with a new job, or 200 with the job an Idempotency-Key already made. */
  submit(
    caller: Caller,
    sub: Submission,
    idempotencyKey?: string,
  ): Promise<{ created: boolean; job: JobRecord }>;
  /** The account's job with its counts; 404 for anyone else's. */
  get(accountId: string, id: string): Promise<{ job: JobRecord; counts: ItemCounts }>;
  list(accountId: string, after: JobCursor | undefined, limit: number): Promise<JobRecord[]>;
  items(
    accountId: string,
    id: string,
    opts: { status?: ItemStatus; after?: number; limit: number },
  ): Promise<{ job: JobRecord; items: ItemRecord[] }>;
  /** A finished item (404 until it is), of the account's job or of a job named by a valid link. */
  item(id: string, index: number, accountId?: string): Promise<{ job: JobRecord; item: ItemRecord }>;
  cancel(accountId: string, id: string): Promise<{ job: JobRecord; counts: ItemCounts }>;
  /** Deletes expired jobs and their files; queues unqueued items. */
  sweep(): Promise<void>;
  /** The account's concurrency for the queue's groups (1 until known: see group-limits.ts). */
  groupLimit(accountId: string): number;
  noteLimit(accountId: string, limit: number): void;
}

export interface ServiceDeps {
  store: JobStore;
  queue: JobQueue;
  files: ResultFiles;
  parsers: () => ItemParsers;
  /** Seals a screenshot item's credentials before they are stored. */
  credentials: ItemCredentials;
  events?: JobEventSink;
  /** Delivery to storage (absent: a job with "store" is refused). */
  delivery?: Pick<JobDelivery, 'check' | 'remember'>;
  /** Announces a canceled job (the worker's job.* announcer). */
  announce(job: JobRecord): Promise<void>;
  /** Accounts' jobs.concurrency (default: only what this node noted). */
  limits?: GroupLimits;
  log: Logger;
  now?: () => number;
}

/**
 * Checks the target a job's `store` names (issue 31 §3), before anything is queued; what records
 * it once the job exists (nothing without `store`).
 */
async function storageOf(
  delivery: ServiceDeps['delivery'],
  accountId: string,
  store: { storage?: string } | undefined,
): Promise<(jobId: string) => Promise<void>> {
  if (!store) return async () => {};
  if (!delivery) throw new AppError('bad_request', 'store: this server delivers to no storage');
  const targetId = await delivery.check(accountId, store);
  return (jobId) => delivery.remember(jobId, accountId, targetId);
}

export function createJobService(deps: ServiceDeps): JobService {
  const now = deps.now ?? Date.now;
  const { store, log } = deps;
  const limits = deps.limits ?? createGroupLimits();

  const notFound = () => new AppError('not_found', 'No such job');

  /** Adds a job's items to the queue in order, streamed in batches, then marks it queued. */
  const enqueue = async (job: JobRecord) => {
    async function* tasks(): AsyncIterable<NewTask<ItemTask>> {
      for (let after = -1; ; ) {
        const page = await store.listItems(job.id, { status: 'queued', after, limit: 500 });
        if (page.length === 0) return;
        for (const item of page) {
          yield {
            group: job.accountId,
            data: { job: job.id, index: item.index },
            key: `${job.id}:${item.index}`,
          };
        }
        after = page[page.length - 1]!.index;
      }
    }
    await deps.queue.add(ITEM_QUEUE, tasks());
    await store.markEnqueued(job.id);
    // Items that all ended before the mark (they were refused at once) end the job here.
    await store.finishJobIfDone(job.id, now());
  };

  return {
    groupLimit: (accountId) => limits.get(accountId),
    noteLimit: (accountId, limit) => limits.note(accountId, limit),

    async submit(caller, sub, idempotencyKey) {
      const at = now();
      if (idempotencyKey !== undefined) {
        const existing = await store.findByIdempotencyKey(
          caller.accountId,
          idempotencyKey,
          at - IDEMPOTENCY_MS,
        );
        if (existing) return { created: false, job: existing };
      }
      const allowance = caller.plan.jobs;
      if (sub.items.length === 0) throw new AppError('bad_request', 'items must hold at least one item');
      if (sub.items.length > MAX_JOB_ITEMS) {
        throw new AppError(
          'bad_request',
          `A job holds at most ${MAX_JOB_ITEMS} items (got ${sub.items.length})`,
        );
      }
      if (sub.items.length > allowance.maxItems) {
        throw new AppError(
          'forbidden',
          `A job on your plan holds at most ${allowance.maxItems} items (got ${sub.items.length})`,
        );
      }
      const items = validateItems(sub.items, sub.source, caller.plan, deps.parsers());
      if (sub.webhook !== undefined) {
        if (!deps.events) throw new AppError('bad_request', 'webhook: this server delivers no webhooks');
        await deps.events.checkEndpoint(caller.accountId, sub.webhook);
      }
      // Issue 31 §3: the storage target is found before anything is queued (400 otherwise).
      const remember = await storageOf(deps.delivery, caller.accountId, sub.store);
      const waiting = await store.waitingOf(caller.accountId);
      if (waiting + items.length > allowance.maxWaiting) {
        throw new AppError(
          'rate_limited',
          `Your account has ${waiting} job items waiting; your plan allows ${allowance.maxWaiting}, so this job's ${items.length} must wait until some have run`,
          { retryAfter: 60, detail: `account ${caller.accountId}` },
        );
      }
      const job: JobRecord = {
        id: `job_${randomBytes(12).toString('base64url')}`,
        accountId: caller.accountId,
        status: 'queued',
        total: items.length,
        webhook: sub.webhook ?? null,
        metadata: sub.metadata ?? null,
        idempotencyKey: idempotencyKey ?? null,
        enqueued: false,
        bytes: 0,
        createdAt: at,
        startedAt: null,
        completedAt: null,
        expiresAt: at + allowance.retentionDays * DAY_MS,
      };
      limits.note(caller.accountId, allowance.concurrency);
      // Sealed under the job's id and the item's index: they are stored only so.
      const sealed = items.map(({ credentials, ...item }) =>
        credentials ? { ...item, credentials: deps.credentials.seal(job.id, item.index, credentials) } : item,
      );
      const made = await store.createJob(job, sealed, at - IDEMPOTENCY_MS);
      if (made.created) {
        await remember(job.id);
        await enqueue(job);
      }
      return made;
    },

    async get(accountId, id) {
      const job = await store.getJob(id, accountId);
      if (!job) throw notFound();
      return { job, counts: await store.counts(id) };
    },

    list: (accountId, after, limit) => store.listJobs(accountId, { ...(after ? { after } : {}), limit }),

    async items(accountId, id, opts) {
      const job = await store.getJob(id, accountId);
      if (!job) throw notFound();
      return { job, items: await store.listItems(id, opts) };
    },

    async item(id, index, accountId) {
      const job = await store.getJob(id, accountId);
      if (!job) throw notFound();
      const item = await store.getItem(id, index);
      if (!item)
        throw new AppError('not_found', `Job ${id} has no item ${index} (its items are 0…${job.total - 1})`);
      if (item.status !== 'succeeded' || !item.result) {
        throw new AppError('not_found', `Item ${index} has no image: it is ${item.status}`);
      }
      return { job, item };
    },

    async cancel(accountId, id) {
      const canceled = await store.cancelJob(id, accountId, now());
      // Its canceled items never run: their credentials go now (a running one's, once it ends).
      if (canceled) await store.clearCredentials(id);
      if (canceled) await deps.announce(canceled);
      // A job that had ended already is answered as it is (DELETE is idempotent).
      const job = canceled ?? (await store.getJob(id, accountId));
      if (!job) throw notFound();
      return { job, counts: await store.counts(id) };
    },

    async sweep() {
      for (const job of await store.expired(now(), 100)) {
        // Files first: a crash between the two leaves a row the next sweep deletes again.
        await deps.files.removeJob(job.accountId, job.id);
        await store.deleteJob(job.id);
        log.info({ job: job.id, account: job.accountId }, 'job deleted after its retention');
      }
      // An item running for half an hour was given up by the queue (its node died each time it
      // ran it): it fails, so its job can end. No render comes near that long.
      for (const id of await store.failStale(now() - STALE_RUNNING_MS, LOST, now())) {
        const ended = await store.finishJobIfDone(id, now());
        if (ended) await deps.announce(ended);
      }
      // Credentials are kept only while an item may still run.
      const cleared = await store.clearCredentials();
      if (cleared > 0) log.debug({ items: cleared }, 'credentials of ended items cleared');
      // A job whose node died while queueing it: a minute old and still not all queued.
      for (const job of await store.unenqueued(now() - 60_000)) {
        log.warn({ job: job.id }, 'queueing the rest of a job whose node stopped while queueing it');
        await enqueue(job);
      }
    },
  };
}

export type { JobEvent };
