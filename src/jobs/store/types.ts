/**
 * The jobs area's records: a job, its items and their results' facts. Times are unix ms. The
 * store keeps states; it never decides them (the service and the worker do, through the
 * conditional updates below, which are what make a second run of an item harmless).
 */

import type { JobEventType } from '../events.js';

export const JOB_STATUSES = ['queued', 'running', 'completed', 'failed', 'canceled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const ITEM_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'canceled'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];
/** `site-page`: a page of a site read as `/og` reads it, its card drawn (a warm job's item). */
export type ItemKind = 'card' | 'screenshot' | 'site-page';

export interface JobRecord {
  id: string;
  accountId: string;
  status: JobStatus;
  /** Items in the job. */
  total: number;
  /** The webhook endpoint the job named at submission. */
  webhook: string | null;
  metadata: Record<string, unknown> | null;
  idempotencyKey: string | null;
  /** True once every item is in the queue. */
  enqueued: boolean;
  /** Bytes of its stored result files. */
  bytes: number;
  createdAt: number;
  startedAt: number | null;
  completedAt: number | null;
  /** When the retention sweep deletes it and its files. */
  expiresAt: number;
}

/** A stored result: its file (relative to the results directory) and what the image is. */
export interface ItemResult {
  file: string;
  contentType: string;
  bytes: number;
  etag: string;
  width: number;
  height: number;
}

export interface ItemRecord {
  jobId: string;
  index: number;
  accountId: string;
  kind: ItemKind;
  /** The item as submitted (JSON text), parsed again by whichever node runs it. */
  request: string;
  status: ItemStatus;
  error: string | null;
  /** Runs started (a second one after a node died, or a retry). */
  attempts: number;
  result: ItemResult | null;
  startedAt: number | null;
  completedAt: number | null;
}

/** An item as submitted. */
export interface NewItem {
  index: number;
  kind: ItemKind;
  request: string;
  /** A screenshot's credentials, sealed (jobs/credentials.ts): never in `request`. */
  credentials?: string;
}

export type ItemCounts = Record<ItemStatus, number>;

/** The end of an item's run. */
export type ItemOutcome = { status: 'succeeded'; result: ItemResult } | { status: 'failed'; error: string };

/**
 * An event a job owes its webhooks, written in the same transaction as what caused it (the
 * outbox): the relay publishes it, then deletes it. `id` is stable across publishes, so a
 * re-publish (its node died before the delete) is the same message to the receiver.
 */
export interface OutboxEvent {
  id: string;
  accountId: string;
  jobId: string;
  /** The item of a render.* event; null for a job.* event. */
  index: number | null;
  type: JobEventType;
  createdAt: number;
  /** Publishes of it that failed so far. */
  failures: number;
}

/** How an item's end is stored (`settleItem`). */
export interface SettleOptions {
  /** Writes the item's render.* event too (someone subscribes to it). */
  itemEvent: boolean;
}

/** A page position in an account's jobs, newest first. */
export interface JobCursor {
  createdAt: number;
  id: string;
}

export interface JobStore {
  /**
   * Inserts the job and its items in one transaction (items in batches as the iterable yields
   * them). With an idempotency key the account already used since `reuseAfter`, nothing is
   * written and that job is returned (`created: false`); an older use gives up its key.
   */
  createJob(
    job: JobRecord,
    items: Iterable<NewItem>,
    reuseAfter: number,
  ): Promise<{ created: boolean; job: JobRecord }>;
  /** The account's job with that idempotency key created since `after`. */
  findByIdempotencyKey(accountId: string, key: string, after: number): Promise<JobRecord | undefined>;
  markEnqueued(jobId: string): Promise<void>;
  /** Jobs created before `before` whose items are not all queued yet (their node died while queueing). */
  unenqueued(before: number): Promise<JobRecord[]>;
  /** The job; with `accountId`, only when it is that account's. */
  getJob(id: string, accountId?: string): Promise<JobRecord | undefined>;
  /** The account's jobs, newest first, after `cursor`. */
  listJobs(accountId: string, opts: { after?: JobCursor; limit: number }): Promise<JobRecord[]>;
  counts(jobId: string): Promise<ItemCounts>;
  /** The account's items waiting to run, over all its jobs. */
  waitingOf(accountId: string): Promise<number>;
  /** Bytes of the account's stored result files. */
  bytesOf(accountId: string): Promise<number>;
  getItem(jobId: string, index: number): Promise<ItemRecord | undefined>;
  /** Items in index order after `after`, of one status when given. */
  listItems(
    jobId: string,
    opts: { status?: ItemStatus; after?: number; limit: number },
  ): Promise<ItemRecord[]>;
  /**
   * Marks a queued or running item running (a running one: its node died) and counts the
   * attempt; undefined, changing nothing, when it has ended or was canceled.
   */
  claimItem(jobId: string, index: number, now: number): Promise<ItemRecord | undefined>;
  /** running → queued (its run was put off: the account's rate limit); the attempt is not counted. */
  releaseItem(jobId: string, index: number): Promise<void>;
  /**
   * Ends a queued or running item; false, changing nothing, when it had ended already (a second
   * run's result is never stored over the first). A success adds its bytes to the job's.
   */
  finishItem(jobId: string, index: number, outcome: ItemOutcome, now: number): Promise<boolean>;
  /**
   * `finishItem`, then `finishJobIfDone`, in one transaction, with their events in the outbox
   * (the item's only when `opts.itemEvent`): `stored` false (nothing written) when the item had
   * ended already; `ended` when this call ended the job.
   */
  settleItem(
    jobId: string,
    index: number,
    outcome: ItemOutcome,
    now: number,
    opts: SettleOptions,
  ): Promise<{ stored: boolean; ended: boolean }>;
  /**
   * Leases up to `limit` outbox events that no relay holds (or whose lease ran out) to `node`
   * until `until`, oldest first. Two nodes never lease one event at once.
   */
  claimEvents(node: string, now: number, until: number, limit: number): Promise<OutboxEvent[]>;
  /** Removes a published event. */
  deleteEvent(id: string): Promise<void>;
  /** A failed publish: counted, and leased until `until` (the retry's time). */
  retryEvent(id: string, until: number): Promise<void>;
  /** queued → running; true when this call started it. */
  startJob(jobId: string, now: number): Promise<boolean>;
  /**
   * When no item waits or runs: queued/running → completed (or failed when no item succeeded),
   * with its job.* event in the outbox. The job when this call ended it.
   */
  finishJobIfDone(jobId: string, now: number): Promise<JobRecord | undefined>;
  /**
   * queued/running → canceled, its queued items with it (running ones finish), with its
   * job.canceled event in the outbox. The job when this call canceled it; undefined when it is
   * not the account's or had ended.
   */
  cancelJob(jobId: string, accountId: string, now: number): Promise<JobRecord | undefined>;
  /**
   * Fails items `running` since before `before` (their task was given up: its node died once
   * too often) with `error`; the ids of their jobs.
   */
  failStale(before: number, error: string, now: number): Promise<string[]>;
  /** Jobs whose retention ended before `now`, oldest first. */
  expired(now: number, limit: number): Promise<JobRecord[]>;
  /** An item's sealed credentials; undefined when it has none (or they were cleared). */
  sealedCredentials(jobId: string, index: number): Promise<string | undefined>;
  /**
   * Clears the sealed credentials of items that have ended (of one job, or of every job): no
   * run needs them again. The number of items cleared.
   */
  clearCredentials(jobId?: string): Promise<number>;
  /** Deletes the job, its items and the events it still owed. */
  deleteJob(jobId: string): Promise<void>;
}
