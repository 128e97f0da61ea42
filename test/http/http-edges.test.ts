import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/errors.js';

// What reaches a real socket before (or beside) the routes: the HTTP parser's own refusals and
// prototype-shaped input, all answered in the `{ "error" }` shape (found by a security review).
let t: TestApp;
let port: number;

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(async () => t?.close());

/** Sends raw bytes and returns the whole answer (the server closes after a parser error). */
function raw(text: string, to = port): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const s = connect(to, '127.0.0.1', () => s.write(text));
    let data = '';
    s.on('data', (d) => {
      data += d;
    });
    s.on('end', () => {
      // A 100 Continue comes before the answer: the last head and body are the answer's.
      const parts = data.split('\r\n\r\n');
      const body = parts.pop() ?? '';
      const head = parts.join('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body });
    });
    s.on('error', reject);
  });
}

describe('HTTP parser refusals', () => {
  it('answers a malformed request with 400 and a JSON error', async () => {
    const res = await raw('GET /render/template HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n');
    expect(res.status).toBe(400);
    expect(res.headers).toContain('content-type: application/json');
    expect(JSON.parse(res.body)).toEqual({ error: 'Malformed HTTP request' });
    // Like every answer, this one carries a request id.
    expect(res.headers).toMatch(/\r\nx-request-id: req_[0-9a-f]{20}\r\n/);
  });

  it('answers headers that are too large with 431 and a JSON error', async () => {
    const res = await raw(
      `GET /render/template HTTP/1.1\r\nHost: x\r\nx-api-key: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(res.status).toBe(431);
    expect(JSON.parse(res.body)).toEqual({ error: 'Request headers are too large' });
    expect(res.headers).toMatch(/\r\nx-request-id: req_[0-9a-f]{20}\r\n/);
  });

  it('gives a request 30 s to arrive, so a truncated body cannot hold a connection for ever', () => {
    expect(t.app.server.requestTimeout).toBe(30_000);
    // Headers too (Node's default is 60 s), and Node looks for late requests every second.
    expect(t.app.server.headersTimeout).toBe(30_000);
  });
});

// Issue 20 §4: requests Node used to answer itself, with an empty body (or no answer at all).
describe('answers Node would otherwise give in its own words', () => {
  const requestId = /\r\nx-request-id: req_[0-9a-f]{20}\r\n/;

  it('400 in the JSON shape for an HTTP/1.1 request without Host', async () => {
    const res = await raw('GET /healthz HTTP/1.1\r\n\r\n');
    expect(res.status).toBe(400);
    expect(res.headers).toContain('content-type: application/json');
    expect(JSON.parse(res.body)).toEqual({ error: 'A Host header is required' });
    expect(res.headers).toMatch(requestId);
  });

  it('an HTTP/1.0 request without Host is still served', async () => {
    const res = await raw('GET /healthz HTTP/1.0\r\n\r\n');
    expect(res.status).toBe(200);
  });

  it('refuses a duplicate Host with 400', async () => {
    const res = await raw('GET /healthz HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ error: 'Send exactly one Host header, not several' });
    expect(res.headers).toMatch(requestId);
  });

  it('417 in the JSON shape for an Expect other than 100-continue', async () => {
    const res = await raw('GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: garbage\r\n\r\n');
    expect(res.status).toBe(417);
    expect(res.headers).toContain('content-type: application/json');
    expect(JSON.parse(res.body)).toEqual({
      error: 'Expect: garbage is not supported; only Expect: 100-continue is',
    });
    expect(res.headers).toMatch(requestId);
  });

  it('Expect: 100-continue still works', async () => {
    const res = await raw(
      'POST /render/template HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
    );
    expect(res.headers).toContain('100 continue');
  });

  it('405 in the JSON shape for CONNECT (Node dropped the connection without an answer)', async () => {
    const res = await raw('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(res.status).toBe(405);
    expect(JSON.parse(res.body)).toEqual({ error: 'Method CONNECT is not allowed: Cardshot is not a proxy' });
    expect(res.headers).toMatch(requestId);
    expect(res.headers).toContain('allow: get, head, post');
  });
});

// The 408 comes at the configured time, not up to a check interval later (issue 20: 35 s for
// headers and 65 s for a body where the documentation says 30 s). Shown with a 2 s time-out.
// Concurrent: each waits out the 2 s time-out on a connection of its own.
describe.concurrent('a truncated request gets its 408 on time', () => {
  let short: FastifyInstance;
  let shortPort: number;
  const TIMEOUT_MS = 2000;
  beforeAll(async () => {
    short = createApp({
      config: t.config,
      log: t.app.log as unknown as Logger,
      ...t.modules,
      requestTimeoutMs: TIMEOUT_MS,
    });
    await short.listen({ port: 0, host: '127.0.0.1' });
    shortPort = (short.server.address() as { port: number }).port;
  });
  afterAll(async () => short?.close());

  for (const [what, text] of [
    ['headers', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: '],
    [
      'body',
      'POST /render/template HTTP/1.1\r\nHost: x\r\nX-Api-Key: KEY\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"templ',
    ],
  ] as const) {
    it(`truncated ${what}: 408 in the JSON shape within a second of the time-out`, async () => {
      const started = performance.now();
      const res = await raw(text.replace('KEY', t.key.key), shortPort);
      const ms = performance.now() - started;
      expect(res.status).toBe(408);
      expect(JSON.parse(res.body)).toEqual({ error: 'The request did not arrive in time' });
      expect(res.headers).toMatch(/\r\nx-request-id: req_[0-9a-f]{20}\r\n/);
      expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      // Generous for a loaded machine; Node's default check interval would make this 30 s.
      expect(ms).toBeLessThan(TIMEOUT_MS + 2500);
    }, 20_000);
  }
});

describe('paths the router cannot use', () => {
  it.each(['/%', '/render/url%zz'])('400 in the error shape for the undecodable path %s', async (path) => {
    const res = await t.inject({ method: 'GET', url: path });
    await expectError(res, 400, 'The URL path is not valid (a malformed percent-encoding?)');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f]{20}$/);
  });

  it('404, not 405, for a missing file under a route that serves files', async () => {
    const res = await t.inject({ method: 'GET', url: '/docs/static/nonexistent.js' });
    await expectError(res, 404, 'No route for GET /docs/static/nonexistent.js');
  });
});

describe('prototype-shaped input', () => {
  it.each(['constructor', 'toString', 'hasOwnProperty', '__proto__'])(
    'refuses the query parameter %s as an unknown field',
    async (name) => {
      const res = await t.inject({ method: 'GET', url: `/render/template?template=blog&title=hi&${name}=x` });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatch(
        new RegExp(`^Unknown query parameter "${name}"|^Unknown field "${name}"`),
      );
    },
  );

  it('refuses "constructor" in a JSON body as an unknown field', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/render/template',
      payload: { template: 'blog', title: 'hi', constructor: 'x' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/^Unknown field "constructor"/);
  });

  it('says what is wrong with "__proto__" in a JSON body instead of calling it invalid JSON', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/render/template',
      headers: { 'content-type': 'application/json' },
      payload: '{"template":"blog","title":"hi","__proto__":{"x":1}}',
    });
    await expectError(res, 400, 'Request body must not contain "__proto__" or "constructor" keys');
  });
});
