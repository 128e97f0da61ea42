import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

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
function raw(text: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => s.write(text));
    let data = '';
    s.on('data', (d) => {
      data += d;
    });
    s.on('end', () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
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
  });
});

describe('paths the router cannot use', () => {
  it.each(['/%', '/render/url%zz'])('400 in the error shape for the undecodable path %s', async (path) => {
    const res = await t.inject({ method: 'GET', url: path });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'The URL path is not valid (a malformed percent-encoding?)' });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f]{20}$/);
  });

  it('404, not 405, for a missing file under a route that serves files', async () => {
    const res = await t.inject({ method: 'GET', url: '/docs/static/nonexistent.js' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'No route for GET /docs/static/nonexistent.js' });
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
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Request body must not contain "__proto__" or "constructor" keys' });
  });
});
