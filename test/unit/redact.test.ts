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
