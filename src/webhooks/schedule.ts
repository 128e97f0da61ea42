/**
 * When a failed delivery is tried again: exponential back-off from 10 s, tripling, capped at
 * 2 h, each delay drawn within ±20% so that many messages failing together (a receiver that
 * was down) do not all come back at the same instant. Over 24 h that is about 18 attempts.
 */
const FIRST_MS = 10_000;
const FACTOR = 3;
const CAP_MS = 2 * 60 * 60_000;
const JITTER = 0.2;

/** The delay after failed attempt number `attempt` (1 for the first). */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(CAP_MS, FIRST_MS * FACTOR ** Math.max(0, attempt - 1));
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}

/**
 * A `Retry-After` header (seconds, or an HTTP date) as milliseconds from `now`; undefined when
 * absent or unreadable. Never negative.
 */
export function retryAfterMs(value: string | string[] | undefined, now: number): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // An HTTP date names its day and month (`Wed, 21 Oct 2026 07:28:00 GMT`); Date.parse alone
  // would also read "-5" or "2" as years.
  if (!/^[A-Za-z]{3},/.test(v)) return undefined;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
