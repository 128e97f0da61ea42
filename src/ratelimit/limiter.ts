/**
 * Rate limiting: a sliding-window log per key. A request is admitted when fewer than `limit`
 * requests were admitted in the last `windowMs`; refused requests are not counted. Unlike a
 * fixed window (what rate-limiter-flexible implements) this never admits 2× the limit around a
 * window edge, and unlike a token bucket or GCRA sized to the same limit it never admits more
 * than `limit` in ANY window of that length. Memory is one timestamp per admitted request in
 * the window (4.7 KiB for 600/min).
 */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests still admitted in the window after this one. */
  remaining: number;
  /**
   * Milliseconds until the oldest counted request leaves the window, i.e. until one more
   * request is admitted when none remain (Retry-After). The window length when nothing is counted.
   */
  resetMs: number;
  windowMs: number;
}

export interface RateLimiter {
  /** Counts one request against `key` when it fits, and says whether it did. */
  consume(key: string, limit: number, windowMs: number): Promise<RateDecision>;
  /** The state of `key` without counting anything (headers on responses that did not consume). */
  peek(key: string, limit: number, windowMs: number): Promise<RateDecision>;
  close(): Promise<void>;
}

/** Builds a decision from the count in the window and the oldest counted time. */
export function decision(
  allowed: boolean,
  count: number,
  oldest: number | undefined,
  now: number,
  limit: number,
  windowMs: number,
): RateDecision {
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - count),
    resetMs: oldest === undefined ? windowMs : Math.max(0, oldest + windowMs - now),
    windowMs,
  };
}
