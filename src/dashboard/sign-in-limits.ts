import type { ServerSecrets } from '../auth/secret.js';
import type { RateLimiter } from '../ratelimit/limiter.js';
import { addressBucket } from './client-address.js';
import type { DashboardConfig } from './settings.js';

/** One sign-in attempt, as the limits see it. */
export interface SignInAttempt {
  /** Lower-cased, as typed. */
  email: string;
  /** The client address (`req.ip`). */
  ip: string;
  /** The id of a valid device cookie for this email, or null. */
  device: string | null;
}

/** The budget that refused an attempt, and when it admits one again. */
export interface SignInRefusal {
  by: 'ip' | 'email+ip' | 'email' | 'device';
  resetMs: number;
}

type Limits = Pick<DashboardConfig, 'signInLimitPerEmail' | 'signInLimitPerIp' | 'signInWindowSeconds'>;

/**
 * Counts one attempt against its budgets, before the password is checked, so parallel guesses
 * cannot all slip through. Every attempt has the per-address budgets (all emails, and this
 * email). The budget for this email across all addresses, ten times larger, caps a guesser who
 * spreads out; a browser with a device cookie for the email skips it (a stranger could use it
 * up) and has a budget of its own instead. Returns the first refusal, or null.
 */
export async function countSignInAttempt(
  limiter: RateLimiter,
  config: Limits,
  attempt: SignInAttempt,
  secrets: Pick<ServerSecrets, 'limiterKey'>,
): Promise<SignInRefusal | null> {
  const windowMs = config.signInWindowSeconds * 1000;
  // Keyed with the server secret: the limiter's keys (in Redis with REDIS_URL) never hold an
  // email, nor a plain hash of one that anyone with a list of emails could match.
  const emailKey = secrets.limiterKey(attempt.email).slice(0, 32);
  const from = addressBucket(attempt.ip);
  const budgets: Array<{ by: SignInRefusal['by']; key: string; limit: number }> = [
    { by: 'ip', key: `signin:ip:${from}`, limit: config.signInLimitPerIp },
    { by: 'email+ip', key: `signin:email-ip:${emailKey}:${from}`, limit: config.signInLimitPerEmail },
    attempt.device === null
      ? { by: 'email', key: `signin:email:${emailKey}`, limit: config.signInLimitPerEmail * 10 }
      : { by: 'device', key: `signin:device:${attempt.device}`, limit: config.signInLimitPerEmail },
  ];
  for (const b of budgets) {
    const d = await limiter.consume(b.key, b.limit, windowMs);
    if (!d.allowed) return { by: b.by, resetMs: d.resetMs };
  }
  return null;
}
