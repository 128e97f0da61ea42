// @module-tag chromium
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable } from '../helpers/browser.js';
import { type PageServer, startPageServer } from '../helpers/pages.js';

// Issue 26 §3, usage: `If-None-Match: *` on a cache miss captured, stored, answered 304 and was
// counted not_modified (5 real captures showed as 5 not_modified + 5 cache_hit).
let t: TestApp;
let pages: PageServer;

beforeAll(async () => {
  pages = await startPageServer();
  t = await startTestApp({ allowPrivateHosts: [pages.hostPort] });
});
afterAll(async () => {
  await t?.close();
  await pages?.close();
});

describe.skipIf(!chromiumAvailable())('usage of screenshots answered 304', () => {
  it('counts a capture made for If-None-Match: * as a capture; a 304 from the cache as not_modified', {
    timeout: 90_000,
  }, async () => {
    const urls = [0, 1, 2].map(
      (i) => `/render/url?url=${encodeURIComponent(`${pages.url}/split?usage=${i}-${Date.now()}`)}`,
    );
    const shot = (url: string) => t.inject({ method: 'GET', url, headers: { 'if-none-match': '*' } });
    const misses = [];
    for (const url of urls) misses.push(await shot(url));
    expect(misses.map((r) => [r.statusCode, r.headers['x-cache'], r.body])).toEqual([
      [304, 'MISS', ''],
      [304, 'MISS', ''],
      [304, 'MISS', ''],
    ]);
    // Stored by those captures: the same request is now answered from the cache.
    const hit = await shot(urls[0]!);
    expect([hit.statusCode, hit.headers['x-cache']]).toEqual([304, 'HIT']);
    await t.modules.usage.flush();
    const [today] = (await t.modules.accounts.accounts.usage(t.account.id, 1)).slice(-1);
    expect(today!.counts).toMatchObject({ screenshot: 3, not_modified: 1, cache_hit: 0 });
  });
});
