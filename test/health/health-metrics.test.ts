import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable } from '../helpers/browser.js';
import { expectError } from '../helpers/errors.js';
import { sample } from '../helpers/metrics.js';
import { startPageServer } from '../helpers/pages.js';
import { pngSize } from '../helpers/png.js';
import { type FixtureServer, startFixtureServer } from '../helpers/servers.js';
import { deleteRedisPrefixes, redisTestUrl, uniqueRedisPrefix } from '../helpers/services.js';

const TOKEN = 'metrics-token-0123456789abcdef';
/** Prometheus's own format checker, taken out of Debian's package by `npm test`'s set-up. */
const PROMTOOL = path.resolve(import.meta.dirname, '../../node_modules/.cache/cardshot/promtool');
const bearer = { authorization: `Bearer ${TOKEN}` };

let dir: string;
let plansFile: string;
let fixture: FixtureServer;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-ops-'));
  plansFile = path.join(dir, 'plans.json');
  // Two requests a minute, so the third is refused.
  await writeFile(
    plansFile,
    JSON.stringify({
      tiny: {
        templates: '*',
        screenshots: { viewports: '*' },
        rateLimit: { requests: 2, windowSeconds: 60 },
      },
    }),
  );
  fixture = await startFixtureServer();
});
afterAll(async () => {
  await fixture?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('/healthz and /readyz', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ metricsToken: TOKEN });
  });
  afterAll(() => t?.close());

  it('/healthz answers 200 without a key, never cached', async () => {
    const res = await t.inject({ method: 'GET', url: '/healthz', auth: false });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'ok' });
    expect(res.json().uptimeSeconds).toBeGreaterThan(0);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  it('/readyz names every check with its latency; the renderer check draws a real card', async () => {
    const res = await t.inject({ method: 'GET', url: '/readyz', auth: false });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.status).toBe('ok');
    expect(Object.keys(body.checks).sort()).toEqual(['browser', 'database', 'renderer', 'storage']);
    expect(body.checks.storage).toMatchObject({ status: 'ok', critical: false });
    expect(body.checks.storage.detail).toMatch(/^writable, \d+\.\d MiB free$/);
    expect(body.checks.database).toMatchObject({ status: 'ok', critical: true, detail: 'sqlite' });
    expect(body.checks.renderer.status).toBe('ok');
    expect(body.checks.renderer.detail).toMatch(/^rendered a card in \d+ ms/);
    // Chromium starts on the first screenshot; until then the browser check says so.
    expect(body.checks.browser).toMatchObject({
      status: 'ok',
      critical: false,
      detail: 'Chromium installed; not started yet',
    });
    for (const c of Object.values(body.checks) as Array<{ ms: number }>)
      expect(c.ms).toBeGreaterThanOrEqual(0);
  });

  it('is cheap: results are reused for a second, and concurrent probes share one run', async () => {
    const renders = t.renders();
    const all = await Promise.all(
      Array.from({ length: 20 }, () => t.inject({ method: 'GET', url: '/readyz', auth: false })),
    );
    const stamps = new Set(all.map((r) => r.json().checkedAt));
    expect(stamps.size).toBe(1);
    // The readiness render is not a template request: nothing is counted as a card render.
    expect(t.renders() - renders).toBeLessThanOrEqual(1);
  });

  it('is neither authenticated, rate limited nor counted as usage', async () => {
    const res = await t.inject({
      method: 'GET',
      url: '/readyz',
      headers: { 'x-api-key': 'cs_test_nonsense' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers.ratelimit).toBeUndefined();
    await t.modules.usage.flush();
    const today = new Date().toISOString().slice(0, 10);
    expect(await t.store.usage(t.account.id, today, today)).toEqual([]);
  });

  it('answers 503 naming the database when the database is gone; liveness stays 200', async () => {
    const broken = await startTestApp();
    try {
      await broken.store.close();
      const res = await broken.inject({ method: 'GET', url: '/readyz', auth: false });
      expect(res.statusCode).toBe(503);
      const body = res.json();
      expect(body.status).toBe('fail');
      expect(body.checks.database.status).toBe('fail');
      expect(body.checks.database.fix).toContain('DATABASE_URL');
      expect(body.checks.renderer.status).toBe('ok');
      // Liveness is about the process, not its dependencies.
      expect((await broken.inject({ method: 'GET', url: '/healthz', auth: false })).statusCode).toBe(200);
    } finally {
      await broken.close().catch(() => {});
    }
  });
});

describe('/readyz and the browser', () => {
  it('stays ready but degraded, naming the problem, when Chromium is missing or will not start', {
    tags: ['process'],
  }, async () => {
    const missing = await startTestApp({ chromiumPath: '/nonexistent/chromium' });
    try {
      const res = await missing.inject({ method: 'GET', url: '/readyz', auth: false });
      expect(res.statusCode).toBe(200);
      expect(res.json().status).toBe('degraded');
      expect(res.json().checks.browser).toMatchObject({
        status: 'fail',
        critical: false,
        detail: 'Chromium is not installed at /nonexistent/chromium',
      });
      expect(res.json().checks.browser.fix).toContain('npx cardshot doctor');
    } finally {
      await missing.close();
    }
    // An executable that is not a browser: the launch fails, and keeps being reported.
    const broken = await startTestApp({ chromiumPath: '/bin/false' });
    try {
      await broken.modules.screenshots.warm().catch(() => {});
      const body = (await broken.inject({ method: 'GET', url: '/readyz', auth: false })).json();
      expect(body.status).toBe('degraded');
      expect(body.checks.browser.status).toBe('fail');
      expect(body.checks.browser.detail).toMatch(/^Chromium could not be started: launch failed/);
    } finally {
      await broken.close();
    }
  });
});

// Concurrent: each test has an app of its own, and an unreachable Redis costs three 1 s waits.
describe.concurrent('/readyz with Redis', async () => {
  const redisUrl = await redisTestUrl();

  it.skipIf(!redisUrl)('checks Redis when REDIS_URL is set', async () => {
    const t = await startTestApp({ redisUrl, redisPrefix: uniqueRedisPrefix() });
    try {
      const body = (await t.inject({ method: 'GET', url: '/readyz', auth: false })).json();
      expect(body.checks.redis).toMatchObject({ status: 'ok', critical: false });
    } finally {
      await t.close();
      await deleteRedisPrefixes(redisUrl!);
    }
  });

  it('stays ready but degraded when Redis is unreachable (limits fall back per process)', async () => {
    const t = await startTestApp({ redisUrl: 'redis://127.0.0.1:1/0', metricsToken: TOKEN });
    try {
      const res = await t.inject({ method: 'GET', url: '/readyz', auth: false });
      expect(res.statusCode).toBe(200);
      expect(res.json().status).toBe('degraded');
      expect(res.json().checks.redis.status).toBe('fail');
      // A request makes the limiter notice, and the metric says limits are per process now.
      await t.inject({ method: 'GET', url: '/render/template?template=blog&title=Redis%20down' });
      const text = (await t.inject({ method: 'GET', url: '/metrics', headers: bearer, auth: false })).body;
      expect(sample(text, 'cardshot_rate_limit_degraded')).toBe(1);
    } finally {
      await t.close();
    }
  });
});

describe('/metrics', () => {
  let t: TestApp;
  const scrape = async () => {
    const res = await t.inject({ method: 'GET', url: '/metrics', headers: bearer, auth: false });
    expect(res.statusCode).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    t = await startTestApp(
      { metricsToken: TOKEN, allowPrivateHosts: [fixture.hostPort], plansFile },
      { plan: 'tiny' },
    );
  });
  afterAll(() => t?.close());

  it('answers 404 while no token is configured', async () => {
    const off = await startTestApp();
    try {
      const res = await off.inject({ method: 'GET', url: '/metrics', auth: false });
      await expectError(
        res,
        404,
        'Metrics are turned off on this server; set CARDSHOT_METRICS_TOKEN to turn them on',
      );
    } finally {
      await off.close();
    }
  });

  it('needs the bearer token (an API key is not enough)', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer wrong-token-0123456789abcdef' },
      { authorization: TOKEN },
      { 'x-api-key': t.key.key },
    ]) {
      const res = await t.inject({ method: 'GET', url: '/metrics', headers, auth: false });
      await expectError(res, 401, 'Missing or invalid metrics token');
      expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    }
    const ok = await t.inject({ method: 'GET', url: '/metrics', headers: bearer, auth: false });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(ok.headers['cache-control']).toBe('no-store');
    // Process metrics come along.
    expect(ok.body).toContain('process_cpu_user_seconds_total');
    expect(ok.body).toContain('nodejs_eventloop_lag_seconds');
    expect(sample(ok.body, 'cardshot_build_info')).toBe(1);
  });

  it('passes `promtool check metrics` (names, types and suffixes as Prometheus wants them)', {
    tags: ['process'],
  }, async () => {
    if (!existsSync(PROMTOOL)) {
      if (process.env.CI === 'true') throw new Error(`${PROMTOOL} is missing: npm test's set-up fetches it`);
      return;
    }
    const body = await scrape();
    const check = spawnSync(PROMTOOL, ['check', 'metrics'], { input: body, encoding: 'utf8' });
    expect(`${check.stdout}${check.stderr}`.trim()).toBe('');
    expect(check.status).toBe(0);
    // The gauges prom-client names `…_total` are gone; the same numbers remain by type.
    expect(body).not.toContain('nodejs_active_handles_total');
    expect(body).toContain('nodejs_active_handles{');
  });

  it('counts requests and renders by route pattern and status, and cache hits and misses per tier', async () => {
    const before = await scrape();
    const route = { method: 'POST', route: '/render/template', status: '200' };
    const card = { template: 'saas', title: `Metrics ${Date.now()}` };
    const first = await t.inject({ method: 'POST', url: '/render/template', payload: card });
    expect(first.headers['x-cache']).toBe('MISS');
    const second = await t.inject({ method: 'POST', url: '/render/template', payload: card });
    expect(second.headers['x-cache']).toBe('HIT');
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(delta('cardshot_http_requests_total', route)).toBe(2);
    expect(delta('cardshot_http_request_duration_seconds_count', route)).toBe(2);
    expect(delta('cardshot_template_render_duration_seconds_count', { template: 'saas' })).toBe(1);
    expect(
      sample(after, 'cardshot_template_render_duration_seconds_sum', { template: 'saas' }),
    ).toBeGreaterThan(0);
    // First request: memory miss, disk miss (then rendered); second: memory hit.
    expect(delta('cardshot_cache_lookups_total', { tier: 'memory', result: 'miss' })).toBe(1);
    expect(delta('cardshot_cache_lookups_total', { tier: 'disk', result: 'miss' })).toBe(1);
    expect(delta('cardshot_cache_lookups_total', { tier: 'memory', result: 'hit' })).toBe(1);
    expect(sample(after, 'cardshot_cache_entries', { tier: 'memory' })).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'cardshot_cache_bytes', { tier: 'memory' })).toBeGreaterThan(1000);
    expect(sample(after, 'cardshot_queue_concurrency', { queue: 'template' })).toBe(
      t.config.renderConcurrency,
    );
    expect(sample(after, 'cardshot_queue_waiting', { queue: 'screenshot' })).toBe(0);
  });

  it('labels routes by pattern, never by the raw URL', async () => {
    await t.inject({ method: 'GET', url: '/render/nothing-here-12345?x=1' });
    await t.inject({ method: 'GET', url: '/dashboard/keys/key_AAAAAAAAAAAAAAAA/revoke', auth: false });
    const text = await scrape();
    expect(text).not.toContain('nothing-here-12345');
    expect(text).not.toContain('key_AAAAAAAAAAAAAAAA');
    expect(
      sample(text, 'cardshot_http_requests_total', { route: 'unmatched', status: '404' }),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'cardshot_http_requests_total', { route: '/dashboard/keys/:id/revoke' })).toBe(1);
  });

  it('counts image-fetch failures by reason', async () => {
    const before = await scrape();
    const tries: Array<[string, string]> = [
      [`${fixture.url}/status/404`, 'http_status'],
      ['http://127.0.0.1:9/refused.png', 'refused'],
      [`${fixture.url}/html-as-png`, 'unsupported'],
    ];
    for (const [imageUrl, reason] of tries) {
      const res = await t.inject({
        method: 'POST',
        url: '/render/template',
        payload: { template: 'product', title: `Image ${reason}`, imageUrl },
        headers: { 'x-api-key': (await freshKey()).key },
      });
      expect(res.statusCode, res.body).toBe(422);
    }
    const after = await scrape();
    for (const [, reason] of tries) {
      expect(
        sample(after, 'cardshot_image_fetch_failures_total', { reason }) -
          sample(before, 'cardshot_image_fetch_failures_total', { reason }),
        reason,
      ).toBe(1);
    }
  });

  it('counts rate-limit refusals by plan', async () => {
    const k = await freshAccountKey();
    const send = () =>
      t.inject({
        method: 'GET',
        url: '/render/template?template=blog&title=Limit',
        headers: { 'x-api-key': k },
      });
    expect((await send()).statusCode).toBe(200);
    expect((await send()).statusCode).toBe(200);
    expect((await send()).statusCode).toBe(429);
    const text = await scrape();
    expect(sample(text, 'cardshot_rate_limited_total', { plan: 'tiny' })).toBe(1);
    expect(sample(text, 'cardshot_http_requests_total', { route: '/render/template', status: '429' })).toBe(
      1,
    );
  });

  it.skipIf(!chromiumAvailable())(
    'reports screenshot captures, the browser pool and queue depths',
    { tags: ['chromium'], timeout: 90_000 },
    async () => {
      const pages = await startPageServer();
      const shots = await startTestApp({
        metricsToken: TOKEN,
        allowPrivateHosts: [pages.hostPort],
        screenshotSpareContexts: 1,
      });
      try {
        const text0 = (await shots.inject({ method: 'GET', url: '/metrics', headers: bearer, auth: false }))
          .body;
        expect(sample(text0, 'cardshot_browser_up')).toBe(0);
        const res = await shots.inject({
          method: 'GET',
          url: `/render/url?url=${encodeURIComponent(`${pages.url}/split`)}`,
        });
        expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
        expect(pngSize(res.rawPayload)).toEqual({ width: 1200, height: 630 });
        const text = (await shots.inject({ method: 'GET', url: '/metrics', headers: bearer, auth: false }))
          .body;
        expect(sample(text, 'cardshot_screenshot_capture_duration_seconds_count', { outcome: 'ok' })).toBe(1);
        expect(sample(text, 'cardshot_browser_up')).toBe(1);
        expect(sample(text, 'cardshot_browser_launches_total')).toBe(1);
        expect(sample(text, 'cardshot_queue_concurrency', { queue: 'screenshot' })).toBe(
          shots.config.screenshotConcurrency,
        );
        expect(sample(text, 'cardshot_http_requests_total', { route: '/render/url', status: '200' })).toBe(1);
        // A refused target is counted with its error code.
        const refused = await shots.inject({
          method: 'GET',
          url: '/render/url?url=http%3A%2F%2F169.254.169.254%2F',
        });
        expect(refused.statusCode).toBe(400);
        const ready = (await shots.inject({ method: 'GET', url: '/readyz', auth: false })).json();
        // As root (as CI runs) Chromium runs as the user set-up creates, sandboxed like any other.
        const sandbox = process.getuid?.() === 0 ? 'sandboxed, as cardshot-chromium' : 'sandboxed';
        expect(ready.checks.browser.detail).toMatch(
          new RegExp(`^Chromium running \\(pid \\d+, ${sandbox}\\), \\d+ capturing, \\d+ spare contexts$`),
        );
      } finally {
        await shots.close();
        await pages.close();
      }
    },
  );

  async function freshKey() {
    return t.modules.accounts.accounts.createKey({
      accountId: (await freshAccount()).id,
      name: 'm',
      environment: 'test',
    });
  }
  async function freshAccountKey() {
    return (await freshKey()).key;
  }
  async function freshAccount() {
    return t.modules.accounts.accounts.createAccount({
      name: 'Metrics',
      email: `m-${Math.random().toString(36).slice(2)}@example.com`,
      plan: 'tiny',
    });
  }
});
