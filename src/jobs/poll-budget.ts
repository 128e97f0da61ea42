/**
 * The budget of an account's reads of its jobs (GET /jobs, /jobs/:id, /jobs/:id/items): apart
 * from its render budget, so following a job never slows its renders (a job's items spend the
 * render budget as they run) and a client polling in a tight loop spends only this one.
 * CARDSHOT_JOBS_POLL_LIMIT reads per 10 s per account (300: 30 a second, room for fifty jobs
 * each polled every two seconds, while a loop, thousands a second, is cut off within a
 * fraction of a second), across nodes when the limiter is Redis. A short window keeps the
 * Retry-After of a client that overran it short too. A webhook needs no polling at all.
 */
import { AppError } from '../errors.js';
import type { RateDecision, RateLimiter } from '../ratelimit/limiter.js';

/** The window of the poll budget. */
export const POLL_WINDOW_MS = 10_000;
/** The policy name the rate-limit headers show. */
export const POLL_POLICY = 'jobs-poll';

/** The limiter key of an account's job reads. */
export const pollKey = (accountId: string) => `jobs-poll:${accountId}`;

/** Counts one read; throws 429 (with Retry-After) when the account's budget is spent. */
export async function spendPoll(
  limiter: RateLimiter,
  accountId: string,
  limit: number,
): Promise<RateDecision> {
  const d = await limiter.consume(pollKey(accountId), limit, POLL_WINDOW_MS);
  if (!d.allowed) {
    throw new AppError(
      'rate_limited',
      `Rate limit exceeded: at most ${limit} reads of your jobs every ${POLL_WINDOW_MS / 1000} s; poll a job every few seconds (honouring Retry-After), or let a webhook tell you when it ends`,
      { retryAfter: Math.max(1, Math.ceil(d.resetMs / 1000)), detail: `jobs poll budget of ${accountId}` },
    );
  }
  return d;
}
