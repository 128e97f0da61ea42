// @module-tag chromium
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUrlGuard } from '../../src/net/url-guard.js';
import { ensureLists } from '../../src/render/screenshot/blocking/build.js';
import { defaultBlockingConfig } from '../../src/render/screenshot/blocking/index.js';
import { AD_REQUESTS, type AdSite, ALL_HOSTS, startAdSite } from '../helpers/ad-site.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/errors.js';

// blockAds and blockCookieBanners through GET /render/url (issue 17): the request path parses,
// gates, keys and hands them to the blocker (its engine is tested on its own in
// test/render/screenshot/blocking.test.ts). The news fixture's ads are red, its own content blue,
// its cookie banners green.
let site: AdSite;
let t: TestApp;
let freeKey: string;

const RED = [255, 0, 0];
const GREEN = [0, 255, 0];
const BLUE = [0, 0, 255];

const shot = (query: Record<string, string>, key?: string) =>
  t.inject({
    method: 'GET',
    url: `/render/url?${new URLSearchParams(query)}`,
    ...(key ? { headers: { 'x-api-key': key } } : {}),
  });

async function colours(image: Buffer) {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return (x: number, y: number) => {
    const i = (y * info.width + x) * 3;
    return [data[i], data[i + 1], data[i + 2]];
  };
}

beforeAll(async () => {
  // What `npm run setup` does; a no-op when the engines are already built.
  await ensureLists(defaultBlockingConfig().listsDir, () => {});
  site = await startAdSite();
  const hosts = ALL_HOSTS.map((h) => `${h}:${site.port}`);
  t = await startTestApp(
    { allowPrivateHosts: hosts },
    {
      // The fixture's real-looking host names all live on one loopback server.
      screenshotGuard: createUrlGuard({
        allowPrivateHosts: hosts,
        lookup: async () => [{ address: '127.0.0.1', family: 4 }],
      }),
    },
  );
  const account = await t.modules.accounts.accounts.createAccount({
    name: 'Free',
    email: 'free-blocking@example.com',
    plan: 'free',
  });
  freeKey = (
    await t.modules.accounts.accounts.createKey({ accountId: account.id, name: 'k', environment: 'test' })
  ).key;
});
afterAll(async () => {
  await t?.close();
  await site?.close();
});

describe('GET /render/url with blockAds and blockCookieBanners', () => {
  it('blockAds: no ad host is asked, the ads are gone and the page keeps its own content', async () => {
    const control = await shot({ url: site.url('/article?control') });
    expect(control.statusCode).toBe(200);
    const plain = await colours(control.rawPayload);
    expect(plain(150, 170)).toEqual(RED);

    const before = AD_REQUESTS.map((r) => site.hits(r.host, r.path));
    const res = await shot({ url: site.url('/article?blocked'), blockAds: 'true' });
    expect(res.statusCode).toBe(200);
    expect(AD_REQUESTS.map((r) => site.hits(r.host, r.path))).toEqual(before);
    const at = await colours(res.rawPayload);
    expect(at(550, 50)).toEqual(BLUE);
    for (const [x, y] of [
      [150, 170],
      [550, 290],
      [150, 410],
    ] as const) {
      expect({ x, y, colour: at(x, y) }).not.toEqual({ x, y, colour: RED });
    }
  });

  it('blockCookieBanners: the consent manager is refused and its banner is gone', async () => {
    const control = await shot({ url: site.url('/consent/onetrust?control') });
    expect((await colours(control.rawPayload))(600, 600)).toEqual(GREEN);
    const res = await shot({ url: site.url('/consent/onetrust?blocked'), blockCookieBanners: '1' });
    expect(res.statusCode).toBe(200);
    expect((await colours(res.rawPayload))(600, 600)).not.toEqual(GREEN);
  });

  it('keys the cache apart: the blocked capture is never served for the plain request', async () => {
    const url = site.url('/article?keyed');
    const blocked = await shot({ url, blockAds: 'true' });
    const plain = await shot({ url });
    expect([blocked.headers['x-cache'], plain.headers['x-cache']]).toEqual(['MISS', 'MISS']);
    expect((await colours(plain.rawPayload))(150, 170)).toEqual(RED);
    expect((await shot({ url, blockAds: '1' })).headers['x-cache']).toBe('HIT');
  });

  it('works with the other options on, and stays off the free plan', async () => {
    const res = await shot({
      url: site.url('/article?all'),
      blockAds: 'true',
      blockCookieBanners: 'true',
      fullPage: 'true',
      format: 'webp',
      darkMode: 'true',
    });
    expect([res.statusCode, res.headers['content-type']]).toEqual([200, 'image/webp']);
    await expectError(
      await shot({ url: site.url('/article?free'), blockAds: 'true' }, freeKey),
      403,
      'Option "blockAds" not available on your plan',
    );
  });
});
