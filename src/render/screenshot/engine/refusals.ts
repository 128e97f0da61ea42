/** The 503s and 429s of a screenshot that could not get its turn. */
import type { Plan } from '../../../auth/plans.js';
import { AppError } from '../../../errors.js';
import type { QueueOwner } from '../../../lib/work-queue.js';
import { type UrlGuard, UrlRefusedError } from '../../../net/url-guard.js';
import type { ShotOwner } from '../types.js';

/** The queue or the browser could not take the request in time: a 503 the client may retry. */
export function busy(detail: string): AppError {
  return new AppError('unavailable', 'The screenshot renderer is busy; retry shortly', {
    retryAfter: 2,
    detail,
  });
}

/** The account's share of the queue is taken: a 429 that names the limit, not the global 503. */
function overShare(plan: Plan, concurrency: number): AppError {
  return new AppError(
    'rate_limited',
    `Too many screenshots in progress for your account: your plan allows ${concurrency} at a time; retry when one has finished`,
    { retryAfter: 2, detail: `plan ${plan.name}: account's screenshot share of the queue is full` },
  );
}

/** The queue share of `owner` (none for requests without an account: tests, internal callers). */
export function queueOwner(owner: ShotOwner | undefined): QueueOwner | undefined {
  if (!owner || owner.plan.screenshots === false) return undefined;
  const { concurrency, queue } = owner.plan.screenshots;
  const plan = owner.plan;
  return {
    id: owner.accountId,
    concurrency,
    maxWaiting: queue,
    overShare: () => overShare(plan, concurrency),
  };
}

/** The 503 message while no browser runs (also the OpenAPI example). */
export const NOT_READY_MESSAGE = 'Screenshots are temporarily unavailable: the browser is not ready';

/** No browser could give a context in time while none runs: a 503 with a longer Retry-After. */
export function notReady(detail: string, cause?: unknown): AppError {
  return new AppError('unavailable', NOT_READY_MESSAGE, {
    retryAfter: 5,
    detail,
    ...(cause === undefined ? {} : { cause }),
  });
}

/** Chromium is not installed: a 503 without Retry-After (it will not fix itself). */
export function notInstalled(executablePath: string): AppError {
  return new AppError(
    'unavailable',
    'Screenshots are not available on this server: Chromium is not installed',
    {
      detail: `no executable at ${executablePath} (CARDSHOT_CHROMIUM_PATH)`,
    },
  );
}

/**
 * Refuses a private or unresolvable top-level URL before a browser is involved, with one answer
 * for both: "does not resolve" beside "not allowed" would tell a key holder which names exist in
 * the DNS we use, internal ones included (issue 26 §3). The reason is in the log only.
 */
export async function preflight(guard: UrlGuard, url: string): Promise<void> {
  try {
    await guard.check(url);
  } catch (err) {
    if (!(err instanceof UrlRefusedError)) throw err;
    throw new AppError('bad_request', 'url points to an address that is not allowed', {
      detail: `${err.reason}: ${err.detail}`,
    });
  }
}
