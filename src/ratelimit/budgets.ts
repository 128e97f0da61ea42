/**
 * Which rate budget a render spends: the account's (an API key's request, or a job's item as it
 * runs), or a key's signed-URL budget. Shared by the render command (which consumes it), the
 * HTTP layer (which peeks at it for headers) and the dashboard (which shows what is left).
 */
import type { Plan } from '../auth/plans.js';

/** Spec §7, word for word. */
export const RATE_LIMITED = 'Rate limit exceeded';

/** The limiter key of an account's request budget (the dashboard peeks at it too). */
export function rateLimitKey(accountId: string): string {
  return `acct:${accountId}`;
}

/**
 * The limiter key of a key's signed-URL budget: apart from the account's, so anonymous traffic on
 * a published URL cannot spend the owner's API budget (issue 26 §3).
 */
export function signedRateLimitKey(keyId: string): string {
  return `signed:${keyId}`;
}

/** One limiter budget: its key, the policy name the headers show, and its size. */
export interface Budget {
  key: string;
  name: string;
  limit: number;
  windowMs: number;
}

/** Who spends a budget: the account's (`account`), or the signed-URL one of `keyId` (`signed`). */
export type BudgetOwner =
  | { accountId: string; plan: Plan; spends: 'account' }
  | { accountId: string; plan: Plan; spends: 'signed'; keyId: string };

/** The budget a request is counted against: the account's, or its key's signed-URL one. */
export function budgetOf(owner: BudgetOwner): Budget {
  if (owner.spends === 'signed') {
    const b = owner.plan.signedRateLimit;
    return {
      key: signedRateLimitKey(owner.keyId),
      name: `${owner.plan.name}-signed`,
      limit: b.requests,
      windowMs: b.windowSeconds * 1000,
    };
  }
  const b = owner.plan.rateLimit;
  return {
    key: rateLimitKey(owner.accountId),
    name: owner.plan.name,
    limit: b.requests,
    windowMs: b.windowSeconds * 1000,
  };
}
