/**
 * The jobs area's records: a job, its items and their results' facts. Times are unix ms. The
 * store keeps states; it never decides them (the service and the worker do, through the
 * conditional updates below, which are what make a second run of an item harmless).
 */

export const JOB_STATUSES = ['queued', 'running', 'completed', 'failed', 'canceled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const ITEM_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'canceled'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];
export type ItemKind = 'card' | 'screenshot';

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
  /** queued → running; true when this call started it. */
  startJob(jobId: string, now: number): Promise<boolean>;
  /**
   * When no item waits or runs: queued/running → completed (or failed when no item succeeded).
   * The job when this call ended it, so one caller alone announces it.
   */
  finishJobIfDone(jobId: string, now: number): Promise<JobRecord | undefined>;
  /**
   * queued/running → canceled, its queued items with it (running ones finish). The job when
   * this call canceled it; undefined when it is not the account's or had ended.
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
  /** Deletes the job and its items. */
  deleteJob(jobId: string): Promise<void>;
}
