import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUrl } from '../../src/auth/signing.js';
import { logFormat } from '../../src/log.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

describe('request log lines', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  const lineFor = (requestId: string) => {
    const line = t.logs.find((l) => l.msg === 'request' && l.reqId === requestId);
    expect(line, `no request line for ${requestId}`).toBeDefined();
    return line!;
  };

  it('name the request id, key id, account id, route pattern, status, cache status and timings', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/render/template',
      payload: { template: 'blog', title: `Log line ${Date.now()}` },
      headers: { 'x-request-id': 'trace-abc.123' },
    });
    expect(res.statusCode).toBe(200);
    const line = lineFor('trace-abc.123');
    expect(line).toMatchObject({
      level: 30,
      service: 'cardshot',
      method: 'POST',
      route: '/render/template',
      url: '/render/template',
      status: 200,
      cache: 'MISS',
      keyId: t.key.record.id,
      accountId: t.account.id,
      auth: 'header',
    });
    expect(line.ms).toBeGreaterThan(0);
    const timings = line.timings as Record<string, number>;
    expect(Object.keys(timings)).toEqual(
      expect.arrayContaining(['cache', 'queue', 'layout', 'render', 'total']),
    );
    expect(timings.render).toBeGreaterThan(0);
  });

  it('never contain the key, whichever way it was sent, and name the route pattern for a signed URL', async () => {
    const viaQuery = await t.inject({
      method: 'GET',
      url: `/render/template?template=blog&title=Query&api_key=${t.key.key}`,
      auth: false,
    });
    expect(viaQuery.statusCode).toBe(200);
    const q = lineFor(String(viaQuery.headers['x-request-id']));
    expect(q).toMatchObject({
      route: '/render/template',
      auth: 'query',
      keyId: t.key.record.id,
      cache: 'MISS',
    });
    expect(String(q.url)).toContain('api_key=[REDACTED]');
    const wrong = await t.inject({
      method: 'GET',
      url: '/render/url?url=https://example.com/',
      headers: { 'x-api-key': `${t.key.key}0` },
    });
    expect(wrong.statusCode).toBe(401);
    const w = lineFor(String(wrong.headers['x-request-id']));
    expect(w).toMatchObject({ route: '/render/url', status: 401, cache: null });
    expect(w.keyId).toBeUndefined();
    const signed = signUrl('/render/template?template=blog&title=Signed', {
      keyId: t.key.record.id,
      signingSecret: t.key.signingSecret,
      expiresAt: Math.floor(Date.now() / 1000) + 600,
    });
    const viaSig = await t.inject({ method: 'GET', url: signed, auth: false });
    expect(viaSig.statusCode).toBe(200);
    const s = lineFor(String(viaSig.headers['x-request-id']));
    expect(s).toMatchObject({ route: '/render/template', auth: 'signature', keyId: t.key.record.id });
    expect(String(s.url)).toContain('sig=[REDACTED]');
    expect(JSON.stringify(t.logs)).not.toContain(t.key.key);
    expect(JSON.stringify(t.logs)).not.toContain(t.key.signingSecret);
  });

  it('put load-balancer probes at debug level so they do not flood the log', async () => {
    const res = await t.inject({ method: 'GET', url: '/healthz', auth: false });
    expect(t.logs.find((l) => l.reqId === res.headers['x-request-id'])).toBeUndefined();
    const miss = await t.inject({ method: 'GET', url: '/nowhere', auth: false });
    expect(lineFor(String(miss.headers['x-request-id']))).toMatchObject({ route: 'unmatched', status: 404 });
  });
});

describe('log format', () => {
  it('is pretty only on a terminal outside production, unless forced', () => {
    expect(logFormat({ nodeEnv: 'development' }, true)).toBe('pretty');
    expect(logFormat({ nodeEnv: 'development' }, false)).toBe('json');
    expect(logFormat({ nodeEnv: 'production' }, true)).toBe('json');
    expect(logFormat({ nodeEnv: 'production', logFormat: 'pretty' }, false)).toBe('pretty');
    expect(logFormat({ nodeEnv: 'development', logFormat: 'json' }, true)).toBe('json');
  });
});
