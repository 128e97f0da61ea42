/**
 * The queue that runs work outliving a request (job items, webhook deliveries). Two
 * implementations sit behind this interface and pass one contract suite: pg-boss on PostgreSQL
 * (with DATABASE_URL) and a SQLite-backed queue in the embedded default's data dir (its own file,
 * queue.sqlite: see sqlite-schema.ts).
 *
 * The queue only dispatches: what a job is, its items' states and results live in the jobs
 * area's own tables, written idempotently, so a task that runs twice (its node died after the
 * render, before `complete`) never doubles or loses a result.
 */

/** A task to add to a queue. */
export interface NewTask<D> {
  /**
   * Whose share it counts against: an account id. A group runs at most `groupLimit(group)`
   * tasks at once across every node, and waiting tasks of different groups are taken in turn,
   * so a 5-task group added behind another's 10,000 starts at once.
   */
  group: string;
  /** JSON-serialisable; small (an item's index and job id, not its rendered bytes). */
  data: D;
  /** Unique in its queue while the task exists: adding the same key again adds nothing. */
  key?: string;
  /** Not before this time (unix ms); now when absent. */
  startAfter?: number;
}

/** A task as a handler gets it. */
export interface Task<D> {
  id: string;
  queue: string;
  group: string;
  data: D;
  /** 1 on the first run; higher on a retry or after the node that ran it died. */
  attempt: number;
}

/** How a queue retries and when a running task whose node died is taken again. */
export interface QueuePolicy {
  /** Retries after a handler throws (0: none); the last failure moves the task to the dead letters. */
  retryLimit: number;
  /** First retry's delay; doubled per attempt (with jitter) when `retryBackoff`. */
  retryDelayMs: number;
  retryBackoff: boolean;
  /**
   * A running task's lease: its node renews it while the task runs (a third of this apart); a
   * task whose lease ran out is considered lost (its node died) and runs again, attempt + 1.
   */
  expireMs: number;
}

export interface WorkOptions {
  /** Tasks of this queue this node runs at once. */
  concurrency: number;
  /** Tasks of `group` running at once across every node (the plan's `jobs.concurrency`). */
  groupLimit(group: string): number;
}

/** What a running task may tell its worker loop. */
export interface TaskControl {
  /**
   * The task now waits on something other than this node's cores (an upload to a bucket): its
   * slot goes to the next task while it keeps its lease (renewed as before), and it completes
   * only when its handler returns, so a node that dies meanwhile leaves it to run again. At most
   * `concurrency` tasks of a worker stand aside at once; past that the call keeps the slot. The
   * group limit still counts it: an account's tasks standing aside are part of its share.
   */
  standAside(): void;
}

/** Runs one task. Throwing fails this attempt (retried per the policy); returning completes it. */
export type TaskHandler<D> = (task: Task<D>, signal: AbortSignal, control: TaskControl) => Promise<void>;

export interface QueueWorker {
  /** Takes no more tasks; waits for the running ones to end (their signal aborts after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
  /** Looks for work now (a group's limit rose), not at the next wake-up or poll. */
  wake(): void;
}

export interface GroupCounts {
  /** Added, not started (startAfter in the future included). */
  waiting: number;
  running: number;
}

/** A task that failed its last allowed run (or was lost with its node too often): kept, not run again. */
export interface DeadTask {
  id: string;
  queue: string;
  group: string;
  data: unknown;
  /** Runs started. */
  attempt: number;
  /** The last failure's message. */
  error: string;
  /** When it was moved to the dead letters (unix ms). */
  diedAt: number;
}

export interface JobQueue {
  /** 'pg-boss' on PostgreSQL, 'sqlite' in the embedded default. */
  readonly kind: 'pg-boss' | 'sqlite';
  /** Creates the queue if it does not exist (idempotent; every node calls it at start). */
  createQueue(name: string, policy: QueuePolicy): Promise<void>;
  /**
   * Adds tasks in order, in batches as the iterable yields them (a 10,000-item job never sits
   * whole in memory). Resolves to the number added (keys already present are skipped).
   */
  add<D>(queue: string, tasks: Iterable<NewTask<D>> | AsyncIterable<NewTask<D>>): Promise<number>;
  /** Starts this node's workers for `queue`. */
  work<D>(queue: string, opts: WorkOptions, handler: TaskHandler<D>): Promise<QueueWorker>;
  /** A group's waiting and running tasks in `queue` (a plan's `jobs.maxWaiting` is checked with it). */
  counts(queue: string, group: string): Promise<GroupCounts>;
  /**
   * The newest dead letters of `queue` (at most `limit`, default 100). Optional for engines that
   * keep them elsewhere; both engines here implement it.
   */
  deadLetters?(queue: string, limit?: number): Promise<DeadTask[]>;
  /** Stops every worker (see `QueueWorker.stop`) and closes connections; never rejects. */
  close(): Promise<void>;
}
