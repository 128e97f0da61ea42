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
