/**
 * Uploads of one account in flight on this node: a slow bucket must not let one account hold
 * every socket and every buffered result. A synchronous render past the cap is refused (429);
 * a job item waits its turn (its plan's concurrency already bounds how many wait).
 */
export interface Inflight {
  /** A slot, or null when the account has `max` in flight. */
  tryTake(accountId: string): (() => void) | null;
  /** A slot, once one is free. */
  take(accountId: string, signal?: AbortSignal): Promise<() => void>;
}

export function createInflight(max: number): Inflight {
  const counts = new Map<string, number>();
  const waiters = new Map<string, Array<() => void>>();
  const release = (accountId: string) => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = waiters.get(accountId)?.shift();
      if (next) return next();
      const n = (counts.get(accountId) ?? 1) - 1;
      if (n <= 0) counts.delete(accountId);
      else counts.set(accountId, n);
      if (waiters.get(accountId)?.length === 0) waiters.delete(accountId);
    };
  };
  const tryTake = (accountId: string) => {
    const n = counts.get(accountId) ?? 0;
    if (n >= max) return null;
    counts.set(accountId, n + 1);
    return release(accountId);
  };
  return {
    tryTake,
    take(accountId, signal) {
      const got = tryTake(accountId);
      if (got) return Promise.resolve(got);
      return new Promise((resolve, reject) => {
        const list = waiters.get(accountId) ?? [];
        // A slot handed over keeps the count: the releaser's slot becomes this waiter's.
        const wake = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release(accountId));
        };
        const onAbort = () => {
          const i = list.indexOf(wake);
          if (i >= 0) list.splice(i, 1);
          reject(signal?.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        list.push(wake);
        waiters.set(accountId, list);
      });
    },
  };
}
