import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deriveSecrets } from '../../src/auth/secret.js';
import { countSignInAttempt } from '../../src/dashboard/sign-in-limits.js';
import type { RateLimiter } from '../../src/ratelimit/limiter.js';
import { createMemoryLimiter } from '../../src/ratelimit/memory.js';

const LIMITS = { signInLimitPerEmail: 5, signInLimitPerIp: 50, signInWindowSeconds: 900 };
const EMAIL = 'owner@acme.test';

/** The real memory limiter, recording the keys it is asked about (what Redis would store). */
function recording(): { limiter: RateLimiter; keys: string[] } {
  const inner = createMemoryLimiter();
  const keys: string[] = [];
  return {
    keys,
    limiter: {
      ...inner,
      consume: (key, limit, windowMs) => {
        keys.push(key);
        return inner.consume(key, limit, windowMs);
      },
    },
  };
}

// Regression (issue 20 §5): the keys held sha256(email), which anyone with a list of emails
// (and read access to Redis) could match. They are now an HMAC under the server secret.
describe('sign-in limit keys', () => {
  it('hold neither the email nor its plain SHA-256, and differ between server secrets', async () => {
    const plain = createHash('sha256').update(EMAIL).digest('hex').slice(0, 32);
    const seen: string[][] = [];
    for (const secret of ['a'.repeat(40), 'b'.repeat(40)]) {
      const { limiter, keys } = recording();
      const attempt = { email: EMAIL, ip: '192.0.2.7', device: null };
      expect(await countSignInAttempt(limiter, LIMITS, attempt, deriveSecrets(secret))).toBeNull();
      const text = keys.join(' ');
      expect(text).not.toContain(plain);
      expect(text).not.toContain(EMAIL);
      expect(text).toContain(deriveSecrets(secret).limiterKey(EMAIL).slice(0, 32));
      seen.push(keys.filter((k) => k.includes('email')));
    }
    expect(seen[0]).toHaveLength(2);
    expect(seen[0]).not.toEqual(seen[1]);
  });
});
