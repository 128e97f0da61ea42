import { AppError } from '../errors.js';

/**
 * Bounded concurrency with a bounded wait queue. A request that finds the queue full is
 * refused at once with 503 + Retry-After instead of piling up memory and latency: a caller
 * that retries in a second gets a better answer than one that waits ten.
 */
export interface WorkQueue {
  /** Runs `task` when a slot is free; rejects with 503 when the queue is full. */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Tasks running now. */
  readonly active: number;
  /** Tasks waiting for a slot. */
  readonly waiting: number;
  /** Tasks that may run at once. */
  readonly concurrency: number;
  /** Rejects everything still waiting; running tasks finish. */
  close(): Promise<void>;
}

interface Waiter {
  start: () => void;
  fail: (err: unknown) => void;
}

/** Creates a queue that runs at most `concurrency` tasks and holds at most `maxWaiting` more. */
export function createWorkQueue(opts: {
  concurrency: number;
  maxWaiting: number;
  name: string;
  /** Called for every task refused because the queue is full (metrics). */
  onBusy?: () => void;
}): WorkQueue {
  let active = 0;
  let closed = false;
  const waiting: Waiter[] = [];
  const idle: Array<() => void> = [];

  const release = () => {
    active--;
    const next = waiting.shift();
    if (next) next.start();
    else if (active === 0) for (const done of idle.splice(0)) done();
  };

  const busy = () =>
    new AppError('unavailable', `The ${opts.name} is busy; retry shortly`, {
      retryAfter: 1,
      detail: `${opts.name} queue full: ${active} running, ${waiting.length} waiting`,
    });

  return {
    get active() {
      return active;
    },
    get waiting() {
      return waiting.length;
    },
    concurrency: opts.concurrency,
    run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      if (closed)
        return Promise.reject(new AppError('unavailable', 'The server is shutting down', { retryAfter: 1 }));
      const execute = async (): Promise<T> => {
        active++;
        try {
          return await task();
        } finally {
          release();
        }
      };
      if (active < opts.concurrency) return execute();
      if (waiting.length >= opts.maxWaiting) {
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
          const i = waiting.indexOf(waiter);
          if (i >= 0) waiting.splice(i, 1);
          reject(signal?.reason ?? new Error('aborted'));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiting.push(waiter);
      });
    },
    async close() {
      closed = true;
      for (const w of waiting.splice(0))
        w.fail(new AppError('unavailable', 'The server is shutting down', { retryAfter: 1 }));
      if (active > 0) await new Promise<void>((resolve) => idle.push(resolve));
    },
  };
}
