/**
 * Rejects when `p` has not settled within `ms` (the late result is dropped). The rejection
 * waits for the end of the event-loop turn in which the timer fired: after a busy stretch
 * (a render, a GC pause) Node runs due timers before it reads sockets, so a reply that was
 * already waiting would otherwise count as a time-out.
 */
export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => setImmediate(() => reject(new Error(`timed out after ${ms} ms`))), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

/**
 * Rejects with `error()` when `p` has not settled within `ms`, at once (a deadline the caller
 * set itself, not an I/O time-out); a late rejection of `p` is swallowed. The error is made
 * when the timer fires, so it can describe the state at that moment.
 */
export function withDeadline<T>(p: Promise<T>, ms: number, error: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  p.catch(() => {});
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(error()), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Waits for `p` to settle, or `ms` at most, whichever comes first; never rejects. */
export async function settleWithin(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    p.then(
      () => {},
      () => {},
    ),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Resolves after `ms`. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
