// @module-tag chromium
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable } from '../helpers/browser.js';
import { type PageServer, startPageServer } from '../helpers/pages.js';
import { pixelAt } from '../helpers/png.js';

// Issue 20 §1 and §3: one account cannot take the browser from the others, and the screenshot
// cache is per account (and keyed by every option that changes the pixels).
let t: TestApp;
let pages: PageServer;
/** Answers a page whose colour changes with every load: red, then blue, then red… */
let flip: Server;
let flipUrl: string;
let freeKey: string;
let otherKey: string;

const shot = (key: string, query: Record<string, string>, headers: Record<string, string> = {}) =>
  t.inject({
    method: 'GET',
    url: `/render/url?${new URLSearchParams(query)}`,
    headers: { 'x-api-key': key, ...headers },
  });

async function newKey(plan: string, name: string): Promise<string> {
  const account = await t.modules.accounts.accounts.createAccount({
    name,
    email: `${name}-${Date.now()}@example.com`,
    plan,
  });
  const key = await t.modules.accounts.accounts.createKey({
    accountId: account.id,
    name,
    environment: 'test',
  });
  return key.key;
}

beforeAll(async () => {
  pages = await startPageServer();
  let loads = 0;
  flip = createServer((_req, res) => {
    const colour = loads++ % 2 === 0 ? '#ff0000' : '#0000ff';
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<!doctype html><body style="margin:0;background:${colour}"></body>`);
  });
  await new Promise<void>((r) => flip.listen(0, '127.0.0.1', () => r()));
  const port = (flip.address() as AddressInfo).port;
  flipUrl = `http://127.0.0.1:${port}/`;
  t = await startTestApp({
    allowPrivateHosts: [pages.hostPort, `127.0.0.1:${port}`],
    screenshotConcurrency: 2,
    screenshotTimeoutMs: 8_000,
    metricsToken: 'fair-share-metrics-token',
  });
  freeKey = await newKey('free', 'flooder');
  otherKey = await newKey('pro', 'neighbour');
  if (chromiumAvailable()) await t.modules.screenshots.warm();
}, 60_000);
afterAll(async () => {
  await t?.close();
  await pages?.close();
  await new Promise<void>((r) => (flip ? flip.close(() => r()) : r()));
});

describe.skipIf(!chromiumAvailable())('GET /render/url: a fair share of the browser per account', () => {
  it("a free key's 40 captures of a page that never finishes do not starve another account", async () => {
    const flood = Array.from({ length: 40 }, (_, i) => shot(freeKey, { url: `${pages.url}/spin?n=${i}` }));
    // Let the flood reach the queue first.
    await new Promise((r) => setTimeout(r, 300));
    const started = performance.now();
    const others = await Promise.all(
      [0, 1, 2].map(async (i) => {
        const res = await shot(otherKey, { url: `${pages.url}/split?fair=${i}` });
        return { status: res.statusCode, ms: performance.now() - started, body: res.body.slice(0, 200) };
      }),
    );
    for (const o of others) {
      expect(o.status, o.body).toBe(200);
      expect(o.ms).toBeLessThan(5_000);
    }
    const answers = await Promise.all(flood);
    const refused = answers.filter((r) => r.statusCode === 429);
    // One capture running and two waiting (the free plan's share); the rest told so at once. The
    // two that waited out their deadline behind the first are told the same: it was their
    // account's own work, not a busy server, that held them.
    expect(refused).toHaveLength(39);
    for (const r of refused) {
      expect(r.json()).toEqual({
        error:
          'Too many screenshots in progress for your account: your plan allows 1 at a time; retry when one has finished',
      });
      expect(r.headers['retry-after']).toBe('2');
    }
    expect(answers.filter((r) => r.statusCode === 503)).toHaveLength(0);
    const metrics = await t.modules.metrics.text();
    expect(metrics).toMatch(/cardshot_screenshot_account_busy_total\{plan="free"\} 39/);
    expect(metrics).toMatch(/cardshot_screenshot_queue_wait_seconds_count\{plan="pro"\} [1-9]/);
  }, 60_000);
});

describe.skipIf(!chromiumAvailable())('GET /render/url: the screenshot cache', () => {
  it('captures again for another waitUntil (domcontentloaded, then networkidle)', async () => {
    const url = `${pages.url}/late?key=waituntil`;
    const early = await shot(otherKey, { url, waitUntil: 'domcontentloaded' });
    expect(early.statusCode).toBe(200);
    expect(early.headers['x-cache']).toBe('MISS');
    const idle = await shot(otherKey, { url, waitUntil: 'networkidle' });
    expect(idle.statusCode).toBe(200);
    expect(idle.headers['x-cache']).toBe('MISS');
    // The late fetch turned the page green: only the networkidle capture waited for it.
    expect(await pixelAt(idle.rawPayload, 600, 300)).toEqual([0, 255, 0, 255]);
    expect(await pixelAt(early.rawPayload, 600, 300)).not.toEqual([0, 255, 0, 255]);
    const again = await shot(otherKey, { url, waitUntil: 'networkidle' });
    expect(again.headers['x-cache']).toBe('HIT');
  }, 60_000);

  it("is per account: another account gets its own capture, not a HIT or a 304 on the first one's ETag", async () => {
    const url = `${flipUrl}?key=accounts`;
    const a = await shot(t.key.key, { url });
    expect(a.statusCode).toBe(200);
    expect(a.headers['x-cache']).toBe('MISS');
    const aHit = await shot(t.key.key, { url });
    expect(aHit.headers['x-cache']).toBe('HIT');
    // B knows A's ETag (say, from a shared page): it must not learn that A captured the URL.
    const b = await shot(otherKey, { url }, { 'if-none-match': String(a.headers.etag) });
    expect(b.statusCode).toBe(200);
    expect(b.headers['x-cache']).toBe('MISS');
    expect(b.headers.age).toBe('0');
    expect(b.headers.etag).not.toBe(a.headers.etag);
    expect(await pixelAt(a.rawPayload, 10, 10)).toEqual([255, 0, 0, 255]);
    expect(await pixelAt(b.rawPayload, 10, 10)).toEqual([0, 0, 255, 255]);
  }, 60_000);
});

describe.skipIf(!chromiumAvailable())('GET /render/url: CARDSHOT_SCREENSHOT_CACHE_SHARED=true', () => {
  it('shares one capture between accounts (single-tenant installs)', async () => {
    const shared = await startTestApp({
      allowPrivateHosts: [new URL(flipUrl).host],
      screenshotCacheShared: true,
    });
    try {
      const other = await shared.modules.accounts.accounts.createAccount({
        name: 'second',
        email: `second-${Date.now()}@example.com`,
        plan: 'pro',
      });
      const otherKey = await shared.modules.accounts.accounts.createKey({
        accountId: other.id,
        name: 'second',
        environment: 'test',
      });
      const url = `/render/url?${new URLSearchParams({ url: `${flipUrl}?key=shared` })}`;
      const a = await shared.inject({ method: 'GET', url });
      expect(a.headers['x-cache']).toBe('MISS');
      const b = await shared.inject({ method: 'GET', url, headers: { 'x-api-key': otherKey.key } });
      expect(b.statusCode).toBe(200);
      expect(b.headers['x-cache']).toBe('HIT');
      expect(b.headers.etag).toBe(a.headers.etag);
    } finally {
      await shared.close();
    }
  }, 60_000);
});
