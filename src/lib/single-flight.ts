/**
 * Coalesces identical concurrent work: while a task for `key` is running, later callers with
 * the same key get the same promise instead of starting another render or fetch.
 *
 * A caller may pass an AbortSignal (its client went away): it stops waiting at once, and when
 * every caller of a task has gone, the task's own signal aborts so the work can stop too. A
 * caller without a signal keeps the task wanted to the end.
 */
export interface SingleFlight<T> {
  /** Runs `task` for `key` unless one is already running; `shared` tells whether it joined one. */
  do(
    key: string,
    task: (signal: AbortSignal) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<{ value: T; shared: boolean }>;
  /** Keys in flight now. */
  readonly size: number;
}

interface Flight<T> {
  promise: Promise<T>;
  controller: AbortController;
  /** Callers still waiting for the result. */
  waiting: number;
}

/** Creates an empty single-flight group. */
export function createSingleFlight<T>(): SingleFlight<T> {
  const inflight = new Map<string, Flight<T>>();
  return {
    get size() {
      return inflight.size;
    },
    async do(key, task, signal) {
      signal?.throwIfAborted();
      let flight = inflight.get(key);
      const shared = flight !== undefined;
      if (!flight) {
        const controller = new AbortController();
        const promise: Promise<T> = (async () => task(controller.signal))().finally(() => {
          // An abandoned flight was already replaced (or removed): leave the newer one alone.
          if (inflight.get(key)?.promise === promise) inflight.delete(key);
        });
        // Every caller may have gone by the time it settles.
        promise.catch(() => {});
        flight = { promise, controller, waiting: 0 };
        inflight.set(key, flight);
      }
      const joined = flight;
      joined.waiting++;
      if (!signal) return { value: await joined.promise, shared };
      let onAbort: (() => void) | undefined;
      const left = new Promise<never>((_, reject) => {
        onAbort = () => {
          joined.waiting--;
          if (joined.waiting === 0) {
            // Abandoned: a caller arriving now starts afresh instead of joining work being
            // stopped (and getting its caller's abort).
            if (inflight.get(key) === joined) inflight.delete(key);
            joined.controller.abort(signal.reason);
          }
          reject(signal.reason);
        };
        signal.addEventListener('abort', onAbort, { once: true });
      });
      try {
        return { value: await Promise.race([joined.promise, left]), shared };
      } finally {
        if (onAbort) signal.removeEventListener('abort', onAbort);
      }
    },
  };
}
