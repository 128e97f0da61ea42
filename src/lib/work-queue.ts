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
  run<T>(task: (slot: Slot) => Promise<T>, signal?: AbortSignal, owner?: QueueOwner): Promise<T>;
  /** Tasks that gave their slot back while they only wait (see Slot.idle). */
  readonly parked: number;
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

/**
 * A running task's hold on its slot. A task that only waits (a page's `delay`, a selector that
 * has not appeared) hands the slot to others meanwhile: two accounts each waiting out
 * delay=10000 held both slots of a 2-core server, and a third account's trivial capture took
 * 9.8 s (issue 26 §2). The owner's share stays taken, so an account cannot open more waiting
 * pages than its share; and at most `maxParked` tasks wait without a slot at once.
 */
export interface Slot {
  /** Gives the slot back while `wait` runs, then takes one again, ahead of tasks not yet started. */
  idle<R>(wait: Promise<R>): Promise<R>;
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

/** Whether a running task holds one of the `concurrency` slots now, and whether it has ended. */
interface SlotState {
  held: boolean;
  done: boolean;
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
  /** Tasks that may give their slot back while they wait (Slot.idle); default `concurrency`. */
  maxParked?: number;
}): WorkQueue {
  const maxParked = opts.maxParked ?? opts.concurrency;
  let active = 0;
  let parked = 0;
  /** Parked tasks whose wait is over, waiting for a slot again: served before new tasks. */
  const resuming: Array<() => void> = [];
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
    while (active < opts.concurrency && resuming.length > 0) resuming.shift()!();
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

  const drained = () => {
    if (active === 0 && waitingCount === 0 && parked === 0) for (const done of idle.splice(0)) done();
  };

  const release = (id: string, s: OwnerState, state: SlotState) => {
    state.done = true;
    if (state.held) active--;
    state.held = false;
    s.running--;
    forget(id, s);
    dispatch();
    drained();
  };

  /** A running task's slot. */
  const slotFor = (signal?: AbortSignal) => {
    const state: SlotState = { held: true, done: false };
    const slot: Slot = {
      async idle<R>(wait: Promise<R>): Promise<R> {
        if (!state.held || parked >= maxParked) return wait;
        state.held = false;
        active--;
        parked++;
        dispatch();
        try {
          return await wait;
        } finally {
          parked--;
          // The task may have ended meanwhile (its page closed under the wait): nothing to take.
          if (!state.done) await retake(state, signal);
          drained();
        }
      },
    };
    return { slot, state };
  };

  /** Takes a slot again for a parked task: at once when one is free, else first in line. */
  const retake = (state: SlotState, signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      const take = () => {
        signal?.removeEventListener('abort', onAbort);
        if (!state.done) {
          active++;
          state.held = true;
        }
        resolve();
      };
      const onAbort = () => {
        const i = resuming.indexOf(take);
        if (i >= 0) resuming.splice(i, 1);
        reject(signal?.reason ?? new Error('aborted'));
      };
      if (active < opts.concurrency && resuming.length === 0) return take();
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      resuming.push(take);
    });

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
    get parked() {
      return parked;
    },
    concurrency: opts.concurrency,
    ownerAtLimit(ownerId) {
      const s = owners.get(`o:${ownerId}`);
      return s !== undefined && s.running >= s.limit;
    },
    run<T>(task: (slot: Slot) => Promise<T>, signal?: AbortSignal, owner?: QueueOwner): Promise<T> {
      if (closed)
        return Promise.reject(new AppError('unavailable', 'The server is shutting down', { retryAfter: 1 }));
      const id = owner ? `o:${owner.id}` : ANONYMOUS;
      const s = stateOf(id, owner ? Math.max(1, owner.concurrency) : Number.POSITIVE_INFINITY);
      const execute = async (): Promise<T> => {
        active++;
        s.running++;
        const { slot, state } = slotFor(signal);
        try {
          return await task(slot);
        } finally {
          release(id, s, state);
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
      if (active > 0 || parked > 0) await new Promise<void>((resolve) => idle.push(resolve));
    },
  };
}
