import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuthContext } from '../../src/auth/authenticate.js';
import { DEFAULT_PLANS, type Plan } from '../../src/auth/plans.js';
import { AppError } from '../../src/errors.js';
import { installErrorHandling } from '../../src/http/errors.js';
import { installObservation } from '../../src/http/observe.js';
import { type RenderRoute, renderHandler } from '../../src/http/render-pipeline.js';
import type { TimingsRecord } from '../../src/http/timings.js';
import { createRenderCommand, type Rendered, type ShotRendered } from '../../src/render/command.js';
import type { ScreenshotRequest } from '../../src/render/screenshot/request.js';
import type { ShotResult } from '../../src/render/screenshot/types.js';
import type { Viewport } from '../../src/render/screenshot/viewports.js';
import type { UsageKind } from '../../src/storage/store.js';
import { capturedLogger } from '../helpers/logs.js';

const plan: Plan = DEFAULT_PLANS[0]!;
const auth: AuthContext = { accountId: 'acc_1', keyId: 'key_1', plan, via: 'header' };

/** What the pipeline did, in order, and what it handed the service. */
interface Trace {
  steps: string[];
  /** The options each service call got, and whether its signal had aborted by then. */
  opts: Array<{ ifNoneMatch?: string; signal?: AbortSignal; abortedAtCall: boolean }>;
  usage: Array<[string, UsageKind]>;
  timings: Array<TimingsRecord | null>;
}

/** A screenshot request for the fake route: `forbidden` asks for a viewport the free plan lacks. */
function shotOf(q: string): ScreenshotRequest {
  const name = q === 'forbidden' ? 'desktop' : 'og';
  return { url: `https://example.com/${q}`, viewport: { name } as Viewport, waitUntil: 'load' };
}

/**
 * A bare app with the real pipeline, render command, error mapping and log line; the caller,
 * the limiter and the service are fakes that write down what they were asked, so the order of
 * the flow can be checked.
 */
async function pipelineApp(
  result: Rendered | (() => Promise<Rendered>),
  route: Partial<RenderRoute<string, ShotRendered>> = {},
): Promise<{ app: FastifyInstance; trace: Trace; lines: Array<Record<string, unknown>> }> {
  const { log, lines } = capturedLogger();
  const app = Fastify({ loggerInstance: log as FastifyBaseLogger });
  const trace: Trace = { steps: [], opts: [], usage: [], timings: [] };
  installObservation(app, { observeRequest: () => {} });
  installErrorHandling(app, 1024);
  app.decorateRequest('auth', null);
  app.decorate('access', {
    callerOf(req) {
      trace.steps.push('caller');
      req.auth = auth;
      return { auth, caller: { ...auth, limit: 'key' }, onBudget: () => trace.steps.push('headers') };
    },
    admit: async () => {
      throw new Error('render routes count through the render command, never admit()');
    },
  });
  app.addHook('onResponse', async (req) => {
    trace.timings.push(req.timings);
  });
  const command = createRenderCommand({
    templates: { resolve: () => Promise.reject(new Error('no cards here')) },
    screenshots: {
      resolve: async (req, opts = {}) => {
        trace.steps.push(`resolve:${opts.owner?.accountId}:${req.viewport.name}`);
        trace.opts.push({ ...opts, abortedAtCall: opts.signal?.aborted === true });
        const r = typeof result === 'function' ? await result() : result;
        return { format: 'png', maxAge: 60, age: 0, targetStatus: 200, ...r } as ShotResult;
      },
    },
    limiter: {
      consume: async (key, limit, windowMs) => {
        trace.steps.push(`consume:${key}`);
        return { allowed: true, limit, remaining: limit - 1, resetMs: windowMs, windowMs };
      },
    },
    usage: { record: (account: string, kind: UsageKind) => trace.usage.push([account, kind]) },
  });
  app.get(
    '/render/fake',
    renderHandler(app, {
      parse: (req) => {
        trace.steps.push('parse');
        const q = (req.query as { q?: string }).q;
        if (!q) throw new AppError('bad_request', 'q is required');
        return q;
      },
      render: (input, caller, opts) => command.screenshot(shotOf(input), caller, opts),
      cacheControl: (r, a) => `public, max-age=60, for=${a.keyId}, etag=${r.etag}`,
      ...route,
    }),
  );
  await app.ready();
  return { app, trace, lines };
}

let open: FastifyInstance | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const png = (cache: 'HIT' | 'MISS'): Rendered => ({
  kind: 'png',
  etag: 'abc',
  cache,
  body: Buffer.from('png bytes'),
  timings: { cache: 0.04, render: 8.26 },
});

describe('the render pipeline', () => {
  it('parses, then takes the caller, counts the budget (headers), then resolves, in that order', async () => {
    const t = await pipelineApp(png('MISS'));
    open = t.app;
    const res = await t.app.inject({ url: '/render/fake?q=card' });
    expect(res.statusCode).toBe(200);
    expect(t.trace.steps).toEqual(['parse', 'caller', 'consume:acct:acc_1', 'headers', 'resolve:acc_1:og']);
  });

  it('stops at a 400 before the caller, and at a 403 before the budget; counts no usage', async () => {
    const t = await pipelineApp(png('MISS'));
    open = t.app;
    const bad = await t.app.inject({ url: '/render/fake' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ error: 'q is required' });
    expect(t.trace.steps).toEqual(['parse']);
    const refused = await t.app.inject({ url: '/render/fake?q=forbidden' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toEqual({ error: 'Viewport "desktop" is not available on your plan; use og' });
    expect(t.trace.steps).toEqual(['parse', 'parse', 'caller']);
    expect(t.trace.usage).toEqual([]);
  });

  it('passes If-None-Match when sent, and a signal that is live while the client waits', async () => {
    const t = await pipelineApp(png('MISS'));
    open = t.app;
    await t.app.inject({ url: '/render/fake?q=a', headers: { 'if-none-match': '"abc"' } });
    await t.app.inject({ url: '/render/fake?q=a' });
    expect(t.trace.opts[0]?.ifNoneMatch).toBe('"abc"');
    expect(t.trace.opts[0]?.signal).toBeInstanceOf(AbortSignal);
    expect(t.trace.opts[0]?.abortedAtCall).toBe(false);
    expect('ifNoneMatch' in t.trace.opts[1]!).toBe(false);
  });

  it('answers a PNG with Cache-Control, ETag, X-Cache, route headers and Server-Timing from one record', async () => {
    const t = await pipelineApp(png('MISS'), {
      headers: (r) => ({ 'X-Extra': `for ${r.etag}` }),
      notes: () => ({ encode: 'included in render' }),
    });
    open = t.app;
    const res = await t.app.inject({ url: '/render/fake?q=a' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.body).toBe('png bytes');
    expect(res.headers['cache-control']).toBe('public, max-age=60, for=key_1, etag=abc');
    expect(res.headers.etag).toBe('"abc"');
    expect(res.headers['x-extra']).toBe('for abc');
    expect(res.headers['x-cache']).toBe('MISS');
    expect(res.headers['server-timing']).toMatch(
      /^cache;dur=0\.0;desc="MISS", render;dur=8\.3, total;dur=\d+\.\d, encode;desc="included in render"$/,
    );
    const record = t.trace.timings[0]!;
    expect(record.cache).toBe('MISS');
    expect(record.notes).toEqual({ cache: 'MISS', encode: 'included in render' });
    expect(Object.keys(record.phases)).toEqual(['cache', 'render', 'total']);
    expect(record.phases.total).toBeGreaterThan(0);
  });

  it('answers 304 with no body, no X-Cache and no cache note when the result has no cache status', async () => {
    const t = await pipelineApp({ kind: 'not-modified', etag: 'abc', timings: { cache: 0.1 } });
    open = t.app;
    const res = await t.app.inject({ url: '/render/fake?q=a', headers: { 'if-none-match': '"abc"' } });
    expect(res.statusCode).toBe(304);
    expect(res.body).toBe('');
    expect(res.headers.etag).toBe('"abc"');
    expect(res.headers['x-cache']).toBeUndefined();
    expect(res.headers['server-timing']).toMatch(/^cache;dur=0\.1, total;dur=\d+\.\d$/);
    expect(t.trace.timings[0]?.cache).toBeNull();
  });

  it('counts a 304, a cache hit and a fresh answer as their own usage kinds', async () => {
    const results: Rendered[] = [
      { kind: 'not-modified', etag: 'abc', cache: 'HIT', timings: {} },
      png('HIT'),
      png('MISS'),
    ];
    const t = await pipelineApp(async () => results.shift()!);
    open = t.app;
    for (let i = 0; i < 3; i++) await t.app.inject({ url: '/render/fake?q=a' });
    expect(t.trace.usage).toEqual([
      ['acc_1', 'not_modified'],
      ['acc_1', 'cache_hit'],
      ['acc_1', 'screenshot'],
    ]);
  });

  // Regression (issue 26 §3): `If-None-Match: *` on a cache miss captured, stored and answered
  // 304, and was counted as not_modified: 5 real captures showed as 5 not_modified.
  it('counts a render answered 304 (If-None-Match: * on a miss) as the render it was', async () => {
    const results: Rendered[] = [
      { kind: 'not-modified', etag: 'abc', cache: 'MISS', timings: {} },
      { kind: 'not-modified', etag: 'abc', cache: 'HIT', timings: {} },
    ];
    const t = await pipelineApp(async () => results.shift()!);
    open = t.app;
    for (let i = 0; i < 2; i++) {
      const res = await t.app.inject({ url: '/render/fake?q=a', headers: { 'if-none-match': '*' } });
      expect(res.statusCode).toBe(304);
    }
    expect(t.trace.usage).toEqual([
      ['acc_1', 'screenshot'],
      ['acc_1', 'not_modified'],
    ]);
  });

  it('writes the log line from the record: the header values, rounded the same, and the cache status', async () => {
    const t = await pipelineApp(png('HIT'));
    open = t.app;
    const res = await t.app.inject({ url: '/render/fake?q=a' });
    const line = t.lines.findLast((l) => l.msg === 'request');
    const total = Number(/total;dur=([\d.]+)/.exec(String(res.headers['server-timing']))?.[1]);
    expect(line).toMatchObject({ cache: 'HIT', status: 200, accountId: 'acc_1', keyId: 'key_1' });
    expect(line?.timings).toEqual({ cache: 0, render: 8.3, total });
  });

  it('leaves the log line without timings or cache status when the request failed before an answer', async () => {
    const t = await pipelineApp(async () => {
      throw new AppError('unavailable', 'The screenshot renderer is busy; retry shortly', {
        retryAfter: 0.2,
      });
    });
    open = t.app;
    const res = await t.app.inject({ url: '/render/fake?q=a' });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.headers['server-timing']).toBeUndefined();
    const line = t.lines.findLast((l) => l.msg === 'request');
    expect(line).toMatchObject({ status: 503, cache: null });
    expect(line).not.toHaveProperty('timings');
    expect(t.trace.timings).toEqual([null]);
  });
});
