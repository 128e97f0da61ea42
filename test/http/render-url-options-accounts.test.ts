// @module-tag chromium
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/errors.js';
import { type PageServer, startPageServer } from '../helpers/pages.js';
import { pngSize } from '../helpers/png.js';

// Many tenants (issue 17): the costly options are bounded per account. One account floods the
// node with the longest delays and endless full pages at the largest scale; another account's
// plain capture is still answered at once, because an account's share of the browser (its
// plan's concurrency and queue) holds, and the height cap, the time-out and the memory guard
// bound each of the flood's captures.
let t: TestApp;
let pages: PageServer;
let hostileKey: string;

function plansFile(): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'cardshot-hostile-plans-')), 'plans.json');
  writeFileSync(
    file,
    JSON.stringify({
      hostile: {
        templates: '*',
        // Every option, one capture at a time and two waiting: the share that protects the others.
        screenshots: { viewports: '*', concurrency: 1, queue: 2, options: '*' },
        rateLimit: { requests: 1000, windowSeconds: 60 },
      },
    }),
  );
  return file;
}

const shot = (query: Record<string, string>, key?: string) =>
  t.inject({
    method: 'GET',
    url: `/render/url?${new URLSearchParams(query)}`,
    ...(key ? { headers: { 'x-api-key': key } } : {}),
  });

beforeAll(async () => {
  pages = await startPageServer();
  t = await startTestApp({
    allowPrivateHosts: [pages.hostPort],
    screenshotConcurrency: 2,
    screenshotTimeoutMs: 15_000,
    plansFile: plansFile(),
  });
  const account = await t.modules.accounts.accounts.createAccount({
    name: 'Hostile',
    email: 'hostile@example.com',
    plan: 'hostile',
  });
  hostileKey = (
    await t.modules.accounts.accounts.createKey({ accountId: account.id, name: 'flood', environment: 'test' })
  ).key;
  // The browser up and its spares made, so the timings below are the steady state.
  expect((await shot({ url: `${pages.url}/split?warm` })).statusCode).toBe(200);
});
afterAll(async () => {
  await t?.close();
  await pages?.close();
});

/** The other account's plain capture: its status and how long it took. */
async function otherAccount(tag: string) {
  const started = performance.now();
  const res = await shot({ url: `${pages.url}/split?other=${tag}` });
  return { status: res.statusCode, ms: performance.now() - started };
}

describe('a hostile account next to another one', () => {
  it('a flood of delay=10000 runs one capture at a time, is refused past its share, and slows nobody else', {
    timeout: 60_000,
  }, async () => {
    const refused: Array<Awaited<ReturnType<typeof shot>>> = [];
    const flood = Array.from({ length: 6 }, (_, i) =>
      shot({ url: `${pages.url}/split?flood=${i}`, delay: '10000' }, hostileKey).then((res) => {
        if (res.statusCode === 429) refused.push(res);
        return res;
      }),
    );
    // Past its share (1 running, 2 waiting) the account is refused at once with a 429.
    const until = Date.now() + 2000;
    while (refused.length < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(refused).toHaveLength(3);
    for (const res of refused) {
      await expectError(
        res,
        429,
        'Too many screenshots in progress for your account: your plan allows 1 at a time; retry when one has finished',
      );
    }
    // Meanwhile the other account's captures take the slot the flood cannot have.
    await new Promise((r) => setTimeout(r, 500));
    for (const tag of ['a', 'b', 'c']) {
      const other = await otherAccount(`delay-${tag}`);
      expect(other.status).toBe(200);
      expect(other.ms).toBeLessThan(3000);
    }
    const answers = (await Promise.all(flood)).filter((res) => !refused.includes(res));
    // One waited its 10 s and was captured; the ones behind it had too little time left for theirs.
    expect(answers.map((res) => res.statusCode).sort()).toEqual([
      200,
      expect.any(Number),
      expect.any(Number),
    ]);
    for (const res of answers.filter((r) => r.statusCode !== 200))
      expect([429, 504]).toContain(res.statusCode);
  });

  it('endless full pages at scale 3 are each cut at the cap, and the other account is answered at once', {
    timeout: 60_000,
  }, async () => {
    const started = performance.now();
    const flood = Array.from({ length: 3 }, (_, i) =>
      shot({ url: `${pages.url}/opt/endless?flood=${i}`, fullPage: 'true', scale: '3' }, hostileKey),
    );
    await new Promise((r) => setTimeout(r, 300));
    for (const tag of ['a', 'b']) {
      const other = await otherAccount(`endless-${tag}`);
      expect(other.status).toBe(200);
      expect(other.ms).toBeLessThan(3000);
    }
    const answers = await Promise.all(flood);
    // Each capture held: cut at 40 megapixels (3600 wide: 11,111 rows, in whole CSS pixels 3,703 × 3), within the time-out.
    const done = answers.filter((r) => r.statusCode === 200);
    expect(done.length).toBeGreaterThan(0);
    for (const res of done) {
      expect(pngSize(res.rawPayload)).toEqual({ width: 3600, height: 11_109 });
      expect(res.headers['x-full-page-truncated']).toBe('true');
    }
    for (const res of answers.filter((r) => r.statusCode !== 200))
      expect([429, 504]).toContain(res.statusCode);
    expect(performance.now() - started).toBeLessThan(45_000);
  });

  it('delay that no longer fits the time-out is a 504 at once, not a capture taken early', async () => {
    const slow = await startTestApp({ allowPrivateHosts: [pages.hostPort], screenshotTimeoutMs: 3000 });
    try {
      const started = performance.now();
      const res = await slow.inject({
        method: 'GET',
        url: `/render/url?${new URLSearchParams({ url: `${pages.url}/split?too-long`, delay: '5000' })}`,
      });
      await expectError(
        res,
        504,
        'delay=5000 ms did not fit in the 3 s time-out: the page took too long to be ready',
      );
      expect(performance.now() - started).toBeLessThan(2500);
    } finally {
      await slow.close();
    }
  });
});
