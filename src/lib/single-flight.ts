/**
 * Coalesces identical concurrent work: while a task for `key` is running, later callers with
 * the same key get the same promise instead of starting another render or fetch.
 */
export interface SingleFlight<T> {
  /** Runs `task` for `key` unless one is already running; `shared` tells whether it joined one. */
  do(key: string, task: () => Promise<T>): Promise<{ value: T; shared: boolean }>;
  /** Keys in flight now. */
  readonly size: number;
}

/** Creates an empty single-flight group. */
export function createSingleFlight<T>(): SingleFlight<T> {
  const inflight = new Map<string, Promise<T>>();
  return {
    get size() {
      return inflight.size;
    },
    async do(key, task) {
      const running = inflight.get(key);
      if (running) return { value: await running, shared: true };
      const p = (async () => {
        try {
          return await task();
        } finally {
          inflight.delete(key);
        }
      })();
      inflight.set(key, p);
      return { value: await p, shared: false };
    },
  };
}
