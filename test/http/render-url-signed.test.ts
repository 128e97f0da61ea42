import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthContext } from '../../src/auth/authenticate.js';
import { loadPlans } from '../../src/auth/plans.js';
import { signUrl } from '../../src/auth/signing.js';
import { pngCacheControl } from '../../src/http/cache-control.js';
import { TEMPLATE_NAMES } from '../../src/render/template/registry.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable } from '../helpers/browser.js';
import { type PageServer, startPageServer } from '../helpers/pages.js';

// Issue 20 §3: previews are signed for 15–25 minutes, and their answers said
// `max-age=31536000, immutable`: browsers and CDNs kept them for a year after the URL expired.
let t: TestApp;
let pages: PageServer;

const signed = (path: string, seconds: number) =>
  signUrl(path, {
    keyId: t.key.record.id,
    signingSecret: t.key.signingSecret,
    expiresAt: Math.floor(Date.now() / 1000) + seconds,
  });

/** The max-age of a Cache-Control value, and whether it says immutable. */
function parse(cc: unknown): { maxAge: number; sMaxAge: number | undefined; immutable: boolean } {
  const v = String(cc);
  const num = (name: string) => {
    const m = new RegExp(`(?:^|[ ,])${name}=(\\d+)`).exec(v);
    return m ? Number(m[1]) : undefined;
  };
  return { maxAge: num('max-age') ?? -1, sMaxAge: num('s-maxage'), immutable: /immutable/.test(v) };
}

beforeAll(async () => {
  pages = await startPageServer();
  t = await startTestApp({ allowPrivateHosts: [pages.hostPort] });
});
afterAll(async () => {
  await t?.close();
  await pages?.close();
});

/** A 200 whose Cache-Control lets it live until the signature's exp (`ttl` s away) at most. */
function expectLivesUntilExp(res: { statusCode: number; headers: Record<string, unknown> }, ttl: number) {
  expect(res.statusCode).toBe(200);
  const cc = parse(res.headers['cache-control']);
  expect(cc.immutable).toBe(false);
  expect(cc.maxAge).toBeGreaterThan(ttl - 50);
  expect(cc.maxAge).toBeLessThanOrEqual(ttl);
  expect(cc.sMaxAge).toBe(cc.maxAge);
}

describe('signed URLs are not cacheable past their exp', () => {
  it('GET /render/template: a signed answer lives until exp at most, and is not immutable', async () => {
    const path = `/render/template?${new URLSearchParams({ template: 'blog', title: 'Signed preview' })}`;
    const res = await t.inject({ method: 'GET', url: signed(path, 900), auth: false });
    expectLivesUntilExp(res, 900);
    // The 304 for it says the same.
    const again = await t.inject({
      method: 'GET',
      url: signed(path, 900),
      auth: false,
      headers: { 'if-none-match': String(res.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    expect(parse(again.headers['cache-control']).maxAge).toBeLessThanOrEqual(900);
    // A key in a header is not time-limited: cards stay content-addressed for a year.
    const keyed = await t.inject({ method: 'GET', url: path });
    expect(keyed.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it.skipIf(!chromiumAvailable())(
    'GET /render/url: the same, also when served from the cache',
    { tags: ['chromium'], timeout: 60_000 },
    async () => {
      const path = `/render/url?${new URLSearchParams({ url: `${pages.url}/split?signed=1` })}`;
      const first = await t.inject({ method: 'GET', url: signed(path, 600), auth: false });
      expectLivesUntilExp(first, 600);
      const hit = await t.inject({ method: 'GET', url: signed(path, 120), auth: false });
      expect(hit.headers['x-cache']).toBe('HIT');
      const left = parse(hit.headers['cache-control']).maxAge - Number(hit.headers.age);
      expect(left).toBeLessThanOrEqual(120);
      // With the key in a header: the screenshot TTL, as before.
      const keyed = await t.inject({ method: 'GET', url: path });
      expect(keyed.headers['cache-control']).toBe('public, max-age=86400, s-maxage=86400');
    },
  );
});

describe('pngCacheControl', () => {
  const plan = loadPlans(TEMPLATE_NAMES).get('pro')!;
  const base: AuthContext = { accountId: 'acc_x', keyId: 'key_x', plan, via: 'signature' };
  it('counts Age against the freshness that is left, and never goes below 0', () => {
    const now = 1_000_000_000_000;
    const exp = now / 1000 + 60;
    expect(pngCacheControl({ ...base, signatureExpiresAt: exp }, 86_400, { age: 300, now })).toBe(
      'public, max-age=360, s-maxage=360',
    );
    expect(pngCacheControl({ ...base, signatureExpiresAt: exp }, 100, { age: 0, now })).toBe(
      'public, max-age=60, s-maxage=60',
    );
    expect(pngCacheControl({ ...base, signatureExpiresAt: now / 1000 - 5 }, 100, { now })).toBe(
      'public, max-age=0, s-maxage=0',
    );
    expect(pngCacheControl({ ...base, via: 'header' }, 100, { now })).toBe(
      'public, max-age=100, s-maxage=100',
    );
  });
});
