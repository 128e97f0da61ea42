import { describe, expect, it } from 'vitest';
import { generateKey } from '../../src/auth/keys.js';
import { requestIdFor } from '../../src/http/request-id.js';

const FRESH = /^req_[0-9a-f]{20}$/;

describe('requestIdFor', () => {
  it("keeps a caller's plain id of up to 64 characters", () => {
    expect(requestIdFor('lb-7f3a.2c:9_x')).toBe('lb-7f3a.2c:9_x');
    expect(requestIdFor('a'.repeat(64))).toBe('a'.repeat(64));
  });

  it('replaces a missing, repeated, long or unusual id', () => {
    for (const sent of [undefined, ['a', 'b'], '', 'a'.repeat(65), 'trace id', 'x\r\ny: z', 'é']) {
      expect(requestIdFor(sent)).toMatch(FRESH);
    }
  });

  // Regression: a secret sent as X-Request-Id was echoed and logged as the request id.
  it('replaces an id shaped like a key, a signing secret or an invite token, even inside a longer id', () => {
    const key = generateKey('staging').key;
    for (const sent of [
      key,
      `trace-${key}`,
      'cssig_0123456789abcdefghijABCDEFGHIJ_-xyz',
      'csinv_0123456789abcdefghijABCDEFGHIJKLM',
    ]) {
      expect(requestIdFor(sent)).toMatch(FRESH);
    }
  });
});
