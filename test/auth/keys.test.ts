import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkKeyFormat, generateKey, newId, visiblePrefix } from '../../src/auth/keys.js';
import { deriveSecrets } from '../../src/auth/secret.js';
import { canonicalRequest, signature, signUrl } from '../../src/auth/signing.js';

describe('API key format', () => {
  it('is cs_<env>_ + 22 random + 6 checksum base62 characters, with a safe visible prefix and last 4', () => {
    const { key, prefix, last4 } = generateKey('production');
    expect(key).toMatch(/^cs_production_[0-9A-Za-z]{28}$/);
    expect(prefix).toBe(key.slice(0, 'cs_production_'.length + 4));
    expect(last4).toBe(key.slice(-4));
    expect(visiblePrefix(key)).toBe(prefix);
    expect(checkKeyFormat(key)).toEqual({ ok: true, environment: 'production' });
  });

  it('never repeats (131 random bits)', () => {
    const keys = new Set(Array.from({ length: 2000 }, () => generateKey('test').key));
    expect(keys.size).toBe(2000);
  });

  it('refuses any single-character change through the checksum, without a database', () => {
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 27 }), fc.integer({ min: 1, max: 61 }), (pos, shift) => {
        const { key } = generateKey('staging');
        const i = key.length - 28 + pos;
        const c = alphabet[(alphabet.indexOf(key[i]!) + shift) % 62]!;
        const typo = key.slice(0, i) + c + key.slice(i + 1);
        expect(checkKeyFormat(typo).ok).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('tells malformed keys from bad checksums', () => {
    expect(checkKeyFormat('hello')).toEqual({ ok: false, reason: 'malformed' });
    expect(checkKeyFormat('cs_Prod_0000000000000000000000000000')).toEqual({
      ok: false,
      reason: 'malformed',
    });
    expect(checkKeyFormat('cs_prod_0000000000000000000000000000')).toEqual({ ok: false, reason: 'checksum' });
  });

  it('gives ids a type prefix', () => {
    expect(newId('key')).toMatch(/^key_[0-9A-Za-z]{16}$/);
    expect(newId('acc')).toMatch(/^acc_[0-9A-Za-z]{16}$/);
  });
});

describe('server secret', () => {
  it('hashes keys and derives signing secrets deterministically, differently per secret and per purpose', () => {
    const a = deriveSecrets('a'.repeat(32));
    const b = deriveSecrets('b'.repeat(32));
    expect(a.hashKey('k')).toBe(a.hashKey('k'));
    expect(a.hashKey('k')).toMatch(/^[0-9a-f]{64}$/);
    expect(a.hashKey('k')).not.toBe(b.hashKey('k'));
    expect(a.signingSecret('key_1')).toMatch(/^cssig_[A-Za-z0-9_-]{43}$/);
    expect(a.signingSecret('key_1')).not.toBe(a.signingSecret('key_2'));
    expect(a.fingerprint).not.toBe(b.fingerprint);
  });
});

describe('signed URL canonical request', () => {
  it('is method, path and the sorted, RFC 3986-encoded parameters without sig (HEAD signs as GET)', () => {
    expect(
      canonicalRequest('HEAD', '/render/template', [
        ['title', "Hello world! (it's)*"],
        ['template', 'blog'],
        ['kid', 'key_x'],
        ['exp', '1700000000'],
        ['sig', 'ignored'],
        ['a', '2'],
        ['a', '1'],
      ]),
    ).toBe(
      'GET\n/render/template\na=1&a=2&exp=1700000000&kid=key_x&template=blog&title=Hello%20world%21%20%28it%27s%29%2A',
    );
  });

  it('signs a URL so that the signature covers every parameter, in any order', () => {
    const url = signUrl('https://cards.example.com/render/template?title=Caf%C3%A9+au+lait&template=blog', {
      keyId: 'key_abc',
      signingSecret: 'cssig_s',
      expiresAt: 1_800_000_000,
    });
    const u = new URL(url);
    expect(u.origin + u.pathname).toBe('https://cards.example.com/render/template');
    expect(url).toContain('title=Caf%C3%A9%20au%20lait');
    const params = [...u.searchParams.entries()].reverse();
    expect(u.searchParams.get('sig')).toBe(signature('cssig_s', canonicalRequest('GET', u.pathname, params)));
    expect(u.searchParams.get('exp')).toBe('1800000000');
  });
});
