import { AppError } from '../errors.js';

/**
 * Bounded concurrency with a bounded wait queue. A request that finds the queue full is
 * refused at once with 503 + Retry-After instead of piling up memory and latency: a caller
 * that retries in a second gets a better answer than one that waits ten.
 *
 * Tasks may name an owner (an account) with its own share: at most `concurrency` of its tasks
 * run and at most `maxWaiting` wait. Past its share the owner gets 429 while the queue as a
 * whole may still have room, and a free slot goes to the owners round robin, so an owner that
 * floods the queue waits behind its own work, not everyone else's (issue 20 §1: a free key
 * sending 40 captures of a page that never finishes had every other account answered 503).
 */
export interface WorkQueue {
  /** Runs `task` when a slot (and a slot of the owner's share) is free; 503 when the queue is full, 429 when the share is. */
  run<T>(task: () => Promise<T>, signal?: AbortSignal, owner?: QueueOwner): Promise<T>;
  /** Tasks running now. */
  readonly active: number;
  /** Tasks waiting for a slot. */
  readonly waiting: number;
  /** Tasks that may run at once. */
  readonly concurrency: number;
  /** True while `ownerId` runs as many tasks as its share allows (its waiting ones wait for it, not for the queue). */
  ownerAtLimit(ownerId: string): boolean;
  /** Rejects everything still waiting; running tasks finish. */
  close(): Promise<void>;
}

/** Who a task is for, and that owner's share of the queue. */
export interface QueueOwner {
  id: string;
  /** Its tasks running at once. */
  concurrency: number;
  /** Its tasks waiting at once; one more is refused with 429. */
  maxWaiting: number;
  /** The refusal past the share (a 429 naming the limit); a generic one when omitted. */
  overShare?: () => AppError;
}

interface Waiter {
  start: () => void;
  fail: (err: unknown) => void;
}

interface OwnerState {
  running: number;
  limit: number;
  waiting: Waiter[];
}

/** Tasks without an owner share one unlimited owner (the template renderer's queue). */
const ANONYMOUS = '';

/** Creates a queue that runs at most `concurrency` tasks and holds at most `maxWaiting` more. */
export function createWorkQueue(opts: {
  concurrency: number;
  maxWaiting: number;
  name: string;
  /** Called for every task refused because the queue is full (metrics). */
  onBusy?: () => void;
}): WorkQueue {
  let active = 0;
  let waitingCount = 0;
  let closed = false;
  const owners = new Map<string, OwnerState>();
  /** Owners with waiting tasks, in the order they are served: the one served last goes to the back. */
  const turn: string[] = [];
  const idle: Array<() => void> = [];

  const stateOf = (id: string, limit: number): OwnerState => {
    let s = owners.get(id);
    if (!s) {
      s = { running: 0, limit, waiting: [] };
      owners.set(id, s);
    }
    s.limit = limit;
    return s;
  };
  const forget = (id: string, s: OwnerState) => {
    if (s.running === 0 && s.waiting.length === 0) owners.delete(id);
  };

  /** Starts waiting tasks while slots are free, one owner at a time, round robin. */
  const dispatch = () => {
    while (active < opts.concurrency) {
      const at = turn.findIndex((id) => {
        const s = owners.get(id);
        return s !== undefined && s.running < s.limit && s.waiting.length > 0;
      });
      if (at < 0) return;
      const id = turn.splice(at, 1)[0]!;
      const s = owners.get(id)!;
      const next = s.waiting.shift()!;
      waitingCount--;
      if (s.waiting.length > 0) turn.push(id);
      next.start();
    }
  };

  const release = (id: string, s: OwnerState) => {
    active--;
    s.running--;
    forget(id, s);
    dispatch();
    if (active === 0 && waitingCount === 0) for (const done of idle.splice(0)) done();
  };

  const busy = () =>
    new AppError('unavailable', `The ${opts.name} is busy; retry shortly`, {
      retryAfter: 1,
      detail: `${opts.name} queue full: ${active} running, ${waitingCount} waiting`,
    });

  return {
    get active() {
      return active;
    },
    get waiting() {
      return waitingCount;
    },
    concurrency: opts.concurrency,
    ownerAtLimit(ownerId) {
      const s = owners.get(`o:${ownerId}`);
      return s !== undefined && s.running >= s.limit;
    },
    run<T>(task: () => Promise<T>, signal?: AbortSignal, owner?: QueueOwner): Promise<T> {
      if (closed)
        return Promise.reject(new AppError('unavailable', 'The server is shutting down', { retryAfter: 1 }));
      const id = owner ? `o:${owner.id}` : ANONYMOUS;
      const s = stateOf(id, owner ? Math.max(1, owner.concurrency) : Number.POSITIVE_INFINITY);
      const execute = async (): Promise<T> => {
        active++;
        s.running++;
        try {
          return await task();
        } finally {
          release(id, s);
        }
      };
      if (active < opts.concurrency && s.running < s.limit && s.waiting.length === 0) return execute();
      if (owner && s.waiting.length >= owner.maxWaiting) {
        forget(id, s);
        return Promise.reject(
          owner.overShare?.() ??
            new AppError('rate_limited', `Too many ${opts.name} tasks in progress for your account`, {
              retryAfter: 1,
            }),
        );
      }
      // An owner with nothing running or waiting always gets one place in the line: owners past
      // their share cannot fill the queue so that everyone else is refused (it may hold one more
      // per such owner than maxWaiting).
      const firstOfOwner = owner !== undefined && s.running === 0 && s.waiting.length === 0;
      if (waitingCount >= opts.maxWaiting && !firstOfOwner) {
        forget(id, s);
        opts.onBusy?.();
        return Promise.reject(busy());
      }
      return new Promise<T>((resolve, reject) => {
        const waiter: Waiter = {
          start: () => {
            signal?.removeEventListener('abort', onAbort);
            execute().then(resolve, reject);
          },
          fail: reject,
        };
        // A caller that went away frees its place in the line instead of rendering for nobody.
        const onAbort = () => {
          const i = s.waiting.indexOf(waiter);
          if (i >= 0) {
            s.waiting.splice(i, 1);
            waitingCount--;
            if (s.waiting.length === 0) {
              const t = turn.indexOf(id);
              if (t >= 0) turn.splice(t, 1);
              forget(id, s);
            }
          }
          reject(signal?.reason ?? new Error('aborted'));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        if (s.waiting.length === 0) turn.push(id);
        s.waiting.push(waiter);
        waitingCount++;
      });
    },
    async close() {
      closed = true;
      for (const s of owners.values()) {
        for (const w of s.waiting.splice(0))
          w.fail(new AppError('unavailable', 'The server is shutting down', { retryAfter: 1 }));
      }
      waitingCount = 0;
      turn.splice(0);
      if (active > 0) await new Promise<void>((resolve) => idle.push(resolve));
    },
  };
}
