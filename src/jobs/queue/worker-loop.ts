import type { QueueWorker, Task, TaskHandler, WorkOptions } from './types.js';

/**
 * What a queue engine gives the worker loop: claiming, settling and renewing tasks. Both engines
 * (SQLite, pg-boss) share the loop, so slots, stop, abort and heartbeat behave the same on each
 * and only the storage differs.
 */
export interface TaskSource<D> {
  /**
   * Claims up to `max` tasks this node may start now: groups at their `groupLimit` are passed
   * over, and the others are taken in turn. Resolves to fewer (or none) when that is all there is.
   */
  claim(max: number, groupLimit: (group: string) => number): Promise<Task<D>[]>;
  /** Removes the task; a no-op when its lease was lost (another node took it). */
  complete(task: Task<D>): Promise<void>;
  /** Schedules a retry (back-off) or moves the task to the dead letters. */
  fail(task: Task<D>, error: unknown): Promise<void>;
  /** Puts the task back, not counted as a failure (the node is stopping). */
  release(task: Task<D>): Promise<void>;
  /** Extends the leases of tasks still running here, so no other node takes them. */
  renew(tasks: Task<D>[]): Promise<void>;
  /** Calls `wake` when there may be work (tasks added, a group's slot freed); returns the unsubscribe. */
  onWake(wake: () => void): () => void;
  /** When (unix ms) the next delayed task is due, if one is waiting. */
  nextDue(): Promise<number | undefined>;
}

export interface LoopTiming {
  /** Backstop poll for work another process added (it cannot wake this one). */
  pollMs: number;
  /** How often running tasks' leases are renewed (a fraction of the queue's expireMs). */
  renewMs: number;
  /** Where errors of the storage go (a dropped connection): the loop itself carries on. */
  onError(err: unknown): void;
}

/** Settling a task is retried this many times: one dropped connection must not cost a re-run. */
const SETTLE_TRIES = 5;
/** What stop() waits past the grace for handlers that ignore their abort signal. */
const AFTER_ABORT_MS = 1000;
const DEFAULT_GRACE_MS = 5000;

/** Runs up to `opts.concurrency` tasks from `source` at once until stopped. */
export function startWorker<D>(
  source: TaskSource<D>,
  opts: WorkOptions,
  handler: TaskHandler<D>,
  timing: LoopTiming,
): QueueWorker {
  const running = new Map<Task<D>, AbortController>();
  /** Running tasks that stood aside (TaskControl): they hold no slot. */
  let aside = 0;
  const busySlots = () => running.size - aside;
  let stopping = false;
  let filling = false;
  let again = false;
  let dueTimer: NodeJS.Timeout | undefined;
  let idle: (() => void) | undefined;

  const settle = async (what: () => Promise<void>) => {
    for (let i = 0; ; i++) {
      try {
        return await what();
      } catch (err) {
        timing.onError(err);
        // Given up: the lease expires and another claim runs the task again (never lost).
        if (i + 1 >= SETTLE_TRIES || stopping) return;
        await sleep(100 * 2 ** i);
      }
    }
  };

  const run = (task: Task<D>) => {
    const ac = new AbortController();
    running.set(task, ac);
    let stoodAside = false;
    const control = {
      standAside() {
        if (stoodAside || aside >= opts.concurrency) return;
        stoodAside = true;
        aside++;
        void fill();
      },
    };
    void (async () => {
      let error: unknown;
      let ok = false;
      try {
        await handler(task, ac.signal, control);
        ok = true;
      } catch (err) {
        error = err;
      }
      if (ok) await settle(() => source.complete(task));
      // Aborted by stop(): the task did not fail, this node is leaving; it runs again elsewhere.
      else if (ac.signal.aborted && stopping) await settle(() => source.release(task));
      else await settle(() => source.fail(task, error));
      if (stoodAside) aside--;
      running.delete(task);
      if (running.size === 0) idle?.();
      void fill();
    })();
  };

  // Delayed tasks (startAfter, a retry's back-off) wake the loop when due, not at the next poll.
  const armDue = async () => {
    const due = await source.nextDue().catch(() => undefined);
    if (due === undefined || stopping) return;
    clearTimeout(dueTimer);
    dueTimer = setTimeout(() => void fill(), Math.max(0, due - Date.now()) + 5);
    dueTimer.unref();
  };

  /** Claims for the free slots and starts what came; false when there was nothing to take. */
  const claimSome = async (): Promise<boolean> => {
    const tasks = await source.claim(opts.concurrency - busySlots(), opts.groupLimit);
    // Stopped during the claim: hand the tasks back rather than start work on a leaving node.
    if (stopping) {
      for (const task of tasks) await settle(() => source.release(task));
      return false;
    }
    for (const task of tasks) run(task);
    if (tasks.length === 0) await armDue();
    return tasks.length > 0;
  };

  const fill = async (): Promise<void> => {
    // One claim at a time per worker; a wake during a claim makes it look once more.
    if (filling) {
      again = true;
      return;
    }
    filling = true;
    try {
      do {
        again = false;
        while (!stopping && busySlots() < opts.concurrency && (await claimSome())) {}
      } while (again && !stopping);
    } catch (err) {
      // The database is away: the poll below tries again.
      timing.onError(err);
    } finally {
      filling = false;
    }
  };

  const unsubscribe = source.onWake(() => void fill());
  const poll = setInterval(() => void fill(), timing.pollMs);
  poll.unref();
  const renew = setInterval(() => {
    if (running.size > 0) source.renew([...running.keys()]).catch(timing.onError);
  }, timing.renewMs);
  renew.unref();
  void fill();

  return {
    wake: () => void fill(),
    async stop(graceMs = DEFAULT_GRACE_MS) {
      if (!stopping) {
        stopping = true;
        clearInterval(poll);
        clearTimeout(dueTimer);
        unsubscribe();
      }
      const drained = new Promise<void>((resolve) => {
        idle = resolve;
        if (running.size === 0) resolve();
      });
      if (!(await within(drained, graceMs))) {
        for (const ac of running.values()) ac.abort(new Error('the worker is stopping'));
        // A handler that ignores its signal keeps its lease until it expires; close never hangs on it.
        await within(drained, AFTER_ABORT_MS);
      }
      clearInterval(renew);
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}

/** True when `p` settles within `ms`. */
async function within(p: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((r) => {
    timer = setTimeout(() => r(false), ms);
  });
  const result = await Promise.race([p.then(() => true as const), late]);
  clearTimeout(timer);
  return result;
}

/** A retry's delay: `retryDelayMs` doubled per earlier failure when backing off, with jitter. */
export function retryDelay(
  policy: { retryDelayMs: number; retryBackoff: boolean },
  failures: number,
  random = Math.random,
): number {
  const base = policy.retryBackoff
    ? policy.retryDelayMs * 2 ** Math.max(0, failures - 1)
    : policy.retryDelayMs;
  // Half fixed, half random: retries of many tasks that failed together (a dropped database)
  // spread out instead of returning at one instant, and none comes back sooner than half the delay.
  return Math.round(base / 2 + (random() * base) / 2);
}

/** Adds `worker` to a queue's set of running workers until it stops (the queue's close stops the rest). */
export function tracked(workers: Set<QueueWorker>, worker: QueueWorker): QueueWorker {
  const handle: QueueWorker = {
    wake: () => worker.wake(),
    async stop(graceMs) {
      await worker.stop(graceMs);
      workers.delete(handle);
    },
  };
  workers.add(handle);
  return handle;
}
