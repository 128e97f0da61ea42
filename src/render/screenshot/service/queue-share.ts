/**
 * What a plan means to the engine's queue: the account's share (running and waiting captures at
 * once) and the 429 past it. The engine is given this, never the plan itself.
 */
import type { Plan } from '../../../auth/plans.js';
import { AppError } from '../../../errors.js';
import type { CaptureOwner } from '../engine/engine.js';
import type { ShotOwner } from '../types.js';

/** The account's share of the queue is taken: a 429 that names the limit, not the global 503. */
export function overShare(plan: Plan, concurrency: number): AppError {
  return new AppError(
    'rate_limited',
    `Too many screenshots in progress for your account: your plan allows ${concurrency} at a time; retry when one has finished`,
    { retryAfter: 2, detail: `plan ${plan.name}: account's screenshot share of the queue is full` },
  );
}

/**
 * What the engine needs of `owner`: a label for its metrics (the plan's name) and its share of
 * the queue (none for a plan without screenshots, and no owner at all for requests without an
 * account: tests, internal callers).
 */
export function captureOwner(owner: ShotOwner | undefined): CaptureOwner | undefined {
  if (!owner) return undefined;
  const plan = owner.plan;
  if (plan.screenshots === false) return { label: plan.name };
  const { concurrency, queue } = plan.screenshots;
  return {
    label: plan.name,
    share: {
      id: owner.accountId,
      concurrency,
      maxWaiting: queue,
      overShare: () => overShare(plan, concurrency),
    },
  };
}
