import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { expectError } from '../helpers/errors.js';
import { type PageServer, startPageServer } from '../helpers/pages.js';

// A plans file with a tiny budget, a fake clock for the window, the real app otherwise.
let dir: string;
let plansFile: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-plans-'));
  plansFile = path.join(dir, 'plans.json');
  await writeFile(
    plansFile,
    JSON.stringify({
      tiny: {
        templates: ['blog', 'product'],
        screenshots: false,
        rateLimit: { requests: 3, windowSeconds: 60 },
      },
    }),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const blog = (title: string) => ({
  method: 'POST' as const,
  url: '/render/template',
  payload: { template: 'blog', title },
});

describe('plans', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({}, { plan: 'free' });
  });
  afterAll(async () => t.close());

  it('403s a template the plan does not include, with the spec message, before any render', async () => {
    const before = t.renders();
    const res = await t.inject({
      method: 'POST',
      url: '/render/template',
      payload: { template: 'saas', title: 'x' },
    });
    await expectError(res, 403, 'Template not available on your plan');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(t.renders()).toBe(before);
  });

  it('renders a template the plan includes', async () => {
    const res = await t.inject(blog('Free plan card'));
    expect(res.statusCode).toBe(200);
    expect(res.headers['ratelimit-policy']).toBe('"free";q=60;w=60');
  });

  it('applies a plan change at once when made through the account manager', async () => {
    await t.modules.accounts.accounts.setPlan(t.account.id, 'pro');
    const res = await t.inject({
      method: 'POST',
      url: '/render/template',
      payload: { template: 'saas', title: 'Up' },
    });
    expect(res.statusCode).toBe(200);
    await t.modules.accounts.accounts.setPlan(t.account.id, 'free');
  });
});

describe('plans and screenshots', () => {
  let free: TestApp;
  let tiny: TestApp;
  let pages: PageServer;
  beforeAll(async () => {
    pages = await startPageServer();
    const allow = { allowPrivateHosts: [pages.hostPort] };
    free = await startTestApp(allow, { plan: 'free' });
    tiny = await startTestApp({ ...allow, plansFile }, { plan: 'tiny' });
  });
  afterAll(async () => {
    await free?.close();
    await tiny?.close();
    await pages?.close();
  });
  const shot = (t: TestApp, viewport?: string) =>
    t.inject({
      method: 'GET',
      url: `/render/url?${new URLSearchParams({ url: `${pages.url}/split`, ...(viewport ? { viewport } : {}) })}`,
    });

  it('403s a viewport the plan does not include, naming the ones it does, before any capture', async () => {
    const res = await shot(free, 'desktop');
    await expectError(res, 403, 'Viewport "desktop" is not available on your plan; use og');
    expect(pages.hits('/split')).toBe(0);
  });

  it('403s every screenshot on a plan without screenshots', async () => {
    const res = await shot(tiny);
    await expectError(res, 403, 'Screenshots are not available on your plan');
    expect(pages.hits('/split')).toBe(0);
  });

  it('takes the screenshot with a viewport the plan includes (og, the default)', {
    tags: ['chromium'],
  }, async () => {
    const res = await shot(free);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['ratelimit-policy']).toBe('"free";q=60;w=60');
  });
});

describe('rate limits', () => {
  let t: TestApp;
  let clock: FakeClock;
  beforeAll(async () => {
    clock = fakeClock();
    t = await startTestApp({ plansFile }, { clock, plan: 'tiny' });
  });
  afterAll(async () => t.close());

  it('sends the IETF and X-RateLimit headers on 200, 429 with Retry-After past the limit, and counts every key of the account', async () => {
    const start = clock.now();
    const a = await t.inject(blog('Limit one'));
    expect(a.statusCode).toBe(200);
    expect(a.headers['ratelimit-policy']).toBe('"tiny";q=3;w=60');
    expect(a.headers.ratelimit).toBe('"tiny";r=2;t=60');
    expect(a.headers['x-ratelimit-limit']).toBe('3');
    expect(a.headers['x-ratelimit-remaining']).toBe('2');
    expect(a.headers['x-ratelimit-reset']).toBe(String(Math.ceil((start + 60_000) / 1000)));

    clock.advance(10_000);
    // A cache hit and a 304 count too (documented): the limit is on requests, not renders.
    const hit = await t.inject(blog('Limit one'));
    expect(hit.headers['x-cache']).toBe('HIT');
    expect(hit.headers.ratelimit).toBe('"tiny";r=1;t=50');
    const other = await t.modules.accounts.accounts.createKey({
      accountId: t.account.id,
      name: 'second',
      environment: 'staging',
    });
    const notModified = await t.inject({
      ...blog('Limit one'),
      headers: { 'if-none-match': String(a.headers.etag), 'x-api-key': other.key },
    });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.headers.ratelimit).toBe('"tiny";r=0;t=50');

    clock.advance(5_000);
    const refused = await t.inject(blog('Limit one'));
    await expectError(refused, 429, 'Rate limit exceeded');
    expect(refused.headers['retry-after']).toBe('45');
    expect(refused.headers.ratelimit).toBe('"tiny";r=0;t=45');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(refused.headers['cache-control']).toBe('no-store');
  });

  it('keeps the order 400 → 403 → 429 while over the limit, and 401 before all', async () => {
    const bad = await t.inject({ method: 'POST', url: '/render/template', payload: { template: 'blog' } });
    await expectError(bad, 400, 'title is required');
    expect(bad.headers.ratelimit).toBe('"tiny";r=0;t=45'); // headers on every authenticated answer
    const forbidden = await t.inject({
      method: 'POST',
      url: '/render/template',
      payload: { template: 'saas', title: 'x' },
    });
    expect(forbidden.statusCode).toBe(403);
    const anonymous = await t.inject({ ...blog('x'), auth: false });
    expect(anonymous.statusCode).toBe(401);
  });

  it('admits again exactly one window after the oldest request, and never 2× across the window edge', async () => {
    // Requests were admitted at +0 s, +10 s and +10 s; now is +15 s.
    clock.advance(44_999); // +59.999 s
    expect((await t.inject(blog('Edge'))).statusCode).toBe(429);
    clock.advance(1); // +60 s: the first request leaves the window
    const one = await t.inject(blog('Edge'));
    expect(one.statusCode).toBe(200);
    expect(one.headers.ratelimit).toBe('"tiny";r=0;t=10');
    expect((await t.inject(blog('Edge'))).statusCode).toBe(429);
    clock.advance(10_000); // +70 s: both +10 s requests leave
    expect((await t.inject(blog('Edge 2'))).statusCode).toBe(200);
    expect((await t.inject(blog('Edge 3'))).statusCode).toBe(200);
    expect((await t.inject(blog('Edge 4'))).statusCode).toBe(429);
  });

  it('records usage per day and kind: renders, cache hits, 304s, errors and refusals', async () => {
    await t.modules.usage.flush();
    const [today] = (await t.modules.accounts.accounts.usage(t.account.id, 1)).slice(-1);
    expect(today!.counts).toEqual({
      template: 4,
      screenshot: 0,
      cache_hit: 1,
      not_modified: 1,
      error: 2, // the 400 and the 403
      rate_limited: 4,
      unfurl: 0,
    });
  });
});
