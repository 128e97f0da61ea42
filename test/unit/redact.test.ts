import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../src/http/redact.js';

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
});
