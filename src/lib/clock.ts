/** Wall-clock milliseconds; injected so tests can move time (rate windows, expiry) on demand. */
export interface Clock {
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };
