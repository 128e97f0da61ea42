import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/http/redact.js';

const KEY = 'cs_production_AbCdEfGhIjKlMnOpQrStUv123456';

describe('redactUrl', () => {
  it('replaces secret query values and keeps the rest', () => {
    expect(redactUrl('/render/template?template=blog&api_key=cs_live_abc&title=Hi')).toBe(
      '/render/template?template=blog&api_key=[REDACTED]&title=Hi',
    );
    expect(redactUrl('/x?sig=abc%3D&kid=key_1&exp=1')).toBe('/x?sig=[REDACTED]&kid=key_1&exp=1');
    expect(redactUrl('/x?API_KEY=secret')).toBe('/x?API_KEY=[REDACTED]');
    expect(redactUrl('/x?api%5Fkey=secret')).toBe('/x?api%5Fkey=[REDACTED]');
    expect(redactUrl('/plain')).toBe('/plain');
  });

  // Regression: a key sent under a name we did not list (x-api-key=…, access_token=…) was logged.
  it('catches secret names whatever their case and punctuation', () => {
    for (const name of ['x-api-key', 'api-key', 'apiKey', 'access_token', 'client_secret', 'password']) {
      expect(redactUrl(`/x?${name}=hunter2&title=Hi`)).toBe(`/x?${name}=[REDACTED]&title=Hi`);
    }
    expect(redactUrl('/x?title=Monkey%20business&keyword=x')).toBe('/x?title=Monkey%20business&keyword=x');
  });

  it('redacts anything shaped like a Cardshot key, signing secret or invite, wherever it is', () => {
    expect(redactUrl(`/render/${KEY}?title=${KEY}`)).toBe('/render/[REDACTED]?title=[REDACTED]');
    expect(redactUrl(`/x?q=${encodeURIComponent(`key: ${KEY}`)}`)).toBe('/x?q=key: [REDACTED]');
    expect(redactUrl('/x?s=cssig_0123456789abcdefghijABCDEFGHIJ_-xyz')).toBe('/x?s=[REDACTED]');
    expect(redactUrl('/dashboard/invite?t=csinv_0123456789abcdefghijABCDEFGHIJ')).toBe(
      '/dashboard/invite?t=[REDACTED]',
    );
  });
});

// Regression (issue 20 §5): one malformed percent escape made decodeURIComponent throw, so the
// whole parameter was checked only in its raw form and a percent-encoded key was logged.
describe('redactUrl with a malformed percent escape', () => {
  const encoded = KEY.replace(/_/g, '%5F');
  it('still redacts a key whose value or name carries a bad escape', () => {
    expect(redactUrl(`/x?q=${encoded}%zz&title=Hi`)).not.toContain('AbCdEfGhIjKlMnOpQrStUv');
    expect(redactUrl(`/x?q=${encoded}%zz&title=Hi`)).toContain('[REDACTED]');
    expect(redactUrl(`/x?api_key=${KEY}%zz`)).toBe('/x?api_key=[REDACTED]');
    expect(redactUrl(`/render/${encoded}%E0%A4%A?x=1`)).not.toContain('AbCdEfGhIjKlMnOpQrStUv');
  });
  it('leaves harmless text with a bad escape alone', () => {
    expect(redactUrl('/x?title=100%zz&y=%')).toBe('/x?title=100%zz&y=%');
  });
});
