import { createServer, request, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressProxy, type EgressProxy, type EgressSession } from '../../src/net/proxy.js';
import { EGRESS_HEADER } from '../../src/net/proxy-headers.js';
import { createUrlGuard } from '../../src/net/url-guard.js';
import { type CanaryServer, closedPort, startCanaryServer } from '../helpers/servers.js';

// The proxy spoken to directly, as Chromium speaks to it: absolute-form GETs and CONNECT.
let upstream: Server;
let upstreamPort: number;
let canary: CanaryServer;
let proxy: EgressProxy;
let session: EgressSession;
let dead: number;
const seen: Array<Record<string, string | string[] | undefined>> = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    if (req.url === '/big') {
      // 4 MiB in 64 KiB chunks, more than the budget test's session may relay.
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 1);
      let sent = 0;
      const pump = () => {
        while (sent < 64 && res.write(chunk)) sent++;
        if (sent >= 64) res.end();
        else
          res.once('drain', () => {
            sent++;
            pump();
          });
      };
      res.on('error', () => {});
      return pump();
    }
    if (req.url === '/slow') {
      // Connected at once, but the answer takes longer than the proxy's connect time-out.
      setTimeout(() => res.end('slow but fine'), 600);
      return;
    }
    seen.push(req.headers);
    res.writeHead(200, {
      'content-type': 'text/plain',
      [EGRESS_HEADER]: 'forged',
      'set-cookie': ['a=1', 'b=2'],
      connection: 'keep-alive',
    });
    res.end(`hello ${req.url}`);
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  upstreamPort = (upstream.address() as AddressInfo).port;
  canary = await startCanaryServer();
  dead = await closedPort();
  const guard = createUrlGuard({ allowPrivateHosts: [`127.0.0.1:${upstreamPort}`, `127.0.0.1:${dead}`] });
  proxy = createEgressProxy({ guard });
  session = await proxy.openSession('test');
});
afterAll(async () => {
  await proxy?.close();
  await canary?.close();
  await new Promise<void>((r) => upstream?.close(() => r()));
});

const port = () => Number(new URL(session.server).port);
/** The Proxy-Authorization a session's browser context sends. */
const authOf = (s: EgressSession) => `Basic ${Buffer.from(`${s.username}:${s.password}`).toString('base64')}`;

function viaProxy(target: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const withAuth = { 'proxy-authorization': authOf(session), ...headers };
      const req = request({ host: '127.0.0.1', port: port(), path: target, headers: withAuth }, (res) => {
        let body = '';
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    },
  );
}

describe('the connect time-out', () => {
  it('bounds connecting only: a server slower to answer than that is still relayed', async () => {
    const guard = createUrlGuard({ allowPrivateHosts: [`127.0.0.1:${upstreamPort}`] });
    const quick = createEgressProxy({ guard, connectTimeoutMs: 200 });
    const s = await quick.openSession('slow');
    try {
      const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const target = `http://127.0.0.1:${upstreamPort}/slow`;
        const req = request(
          {
            host: '127.0.0.1',
            port: Number(new URL(s.server).port),
            path: target,
            headers: { 'proxy-authorization': authOf(s) },
          },
          (r) => {
            let body = '';
            r.on('data', (d) => {
              body += d;
            });
            r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(res).toEqual({ status: 200, body: 'slow but fine' });
    } finally {
      await quick.close();
    }
  });
});

/** A plain-http GET through session `s` with its credentials: the status and the proxy's mark. */
function statusVia(s: EgressSession, target: string): Promise<{ status: number; mark: unknown }> {
  return new Promise((resolve, reject) => {
    request(
      {
        host: '127.0.0.1',
        port: Number(new URL(s.server).port),
        path: target,
        headers: { 'proxy-authorization': authOf(s) },
      },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, mark: res.headers[EGRESS_HEADER] });
      },
    )
      .on('error', reject)
      .end();
  });
}

/** Sends CONNECT and returns the proxy's status line. */
function tunnel(authority: string, auth: string | null = authOf(session)): Promise<string> {
  return new Promise((resolve, reject) => {
    const credentials = auth === null ? '' : `Proxy-Authorization: ${auth}\r\n`;
    const s = connect(port(), '127.0.0.1', () =>
      s.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${credentials}\r\n`),
    );
    s.once('data', (d) => {
      resolve(String(d).split('\r\n')[0]!);
      s.destroy();
    });
    s.once('close', () => resolve('(closed without an answer)'));
    s.on('error', reject);
  });
}

describe('egress proxy', () => {
  it("answers 407 to a client without the session's credentials (any local process), and relays nothing", async () => {
    const before = seen.length;
    const plain = await viaProxy(`http://127.0.0.1:${upstreamPort}/page`, { 'proxy-authorization': '' });
    expect(plain.status).toBe(407);
    expect(plain.headers['proxy-authenticate']).toBe('Basic realm="cardshot egress"');
    const wrong = await viaProxy(`http://127.0.0.1:${upstreamPort}/page`, {
      'proxy-authorization': `Basic ${Buffer.from(`${session.username}:guess`).toString('base64')}`,
    });
    expect(wrong.status).toBe(407);
    // Another session's credentials are not this session's.
    const other = await proxy.openSession('other-credentials');
    try {
      expect(await tunnel(`127.0.0.1:${upstreamPort}`, authOf(other))).toBe(
        'HTTP/1.1 407 Proxy Authentication Required',
      );
    } finally {
      await other.close();
    }
    expect(await tunnel(`127.0.0.1:${upstreamPort}`, null)).toBe(
      'HTTP/1.1 407 Proxy Authentication Required',
    );
    expect(seen.length).toBe(before);
    // With them: relayed.
    expect((await viaProxy(`http://127.0.0.1:${upstreamPort}/page`)).status).toBe(200);
  });

  it('forwards an allowed absolute-form request, without hop-by-hop headers either way', async () => {
    const res = await viaProxy(`http://127.0.0.1:${upstreamPort}/page?x=1`, {
      'proxy-connection': 'keep-alive',
      'x-custom': 'kept',
    });
    expect(res.status).toBe(200);
    expect(res.body).toBe('hello /page?x=1');
    const got = seen.at(-1)!;
    expect(got['x-custom']).toBe('kept');
    expect(got['proxy-authorization']).toBeUndefined();
    expect(got['proxy-connection']).toBeUndefined();
    expect(got.host).toBe(`127.0.0.1:${upstreamPort}`);
    // A target cannot forge the proxy's own marker; repeated headers survive.
    expect(res.headers[EGRESS_HEADER]).toBeUndefined();
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(session.decisionFor(`http://127.0.0.1:${upstreamPort}/`)).toEqual({
      kind: 'allowed',
      address: '127.0.0.1',
    });
  });

  it('answers a refused plain-http target itself with 204 and records why; the target sees nothing', async () => {
    const res = await viaProxy(`${canary.url}/steal`);
    expect(res.status).toBe(204);
    expect(res.headers[EGRESS_HEADER]).toBe(session.token);
    expect(session.decisionFor(canary.url)).toMatchObject({ kind: 'refused', reason: 'port' });
    expect(canary.connections).toBe(0);
  });

  it('refuses a request that is not in absolute form (a page aiming at the proxy itself)', async () => {
    const res = await viaProxy('/internal');
    expect(res.status).toBe(400);
    expect(session.refused.some((r) => r.detail === 'not absolute-form')).toBe(true);
  });

  it('checks every CONNECT, whatever the port, and records refusals and unreachable hosts', async () => {
    expect(await tunnel(`127.0.0.1:${canary.port}`)).toBe('HTTP/1.1 403 Forbidden');
    expect(await tunnel('169.254.169.254:443')).toBe('HTTP/1.1 403 Forbidden');
    expect(session.decisionFor('https://169.254.169.254/')).toMatchObject({
      kind: 'refused',
      reason: 'address',
    });
    expect(await tunnel(`127.0.0.1:${dead}`)).toBe('HTTP/1.1 502 Bad Gateway');
    expect(session.decisionFor(`https://127.0.0.1:${dead}/`)).toMatchObject({
      kind: 'unreachable',
      code: 'ECONNREFUSED',
    });
    expect(await tunnel(`127.0.0.1:${upstreamPort}`)).toBe('HTTP/1.1 200 Connection Established');
    expect(await tunnel('example.com:99999')).toBe('HTTP/1.1 400 Bad Request');
    expect(await tunnel('user@example.com:443')).toBe('HTTP/1.1 400 Bad Request');
    expect(await tunnel('not a host')).toBe('HTTP/1.1 400 Bad Request');
    expect(canary.connections).toBe(0);
  });

  it('records an upstream that refuses the connection for plain http', async () => {
    const res = await viaProxy(`http://127.0.0.1:${dead}/`);
    expect(res.status).toBe(204);
    expect(session.decisionFor(`http://127.0.0.1:${dead}/`)).toMatchObject({
      kind: 'unreachable',
      code: 'ECONNREFUSED',
    });
  });

  it('keeps one record per session', async () => {
    const other = await proxy.openSession('other');
    try {
      expect(other.decisionFor(canary.url)).toBeUndefined();
      expect(other.token).not.toBe(session.token);
    } finally {
      await other.close();
    }
  });

  it('cuts a session that passes its byte budget, and refuses its later requests', async () => {
    const small = await proxy.openSession('budget', { maxBytes: 256 * 1024 });
    try {
      const got = await new Promise<{ bytes: number; error: boolean }>((resolve) => {
        let bytes = 0;
        const req = request(
          {
            host: '127.0.0.1',
            port: Number(new URL(small.server).port),
            path: `http://127.0.0.1:${upstreamPort}/big`,
            headers: { 'proxy-authorization': authOf(small) },
          },
          (res) => {
            res.on('data', (d: Buffer) => {
              bytes += d.length;
            });
            res.on('end', () => resolve({ bytes, error: false }));
            res.on('error', () => resolve({ bytes, error: true }));
            res.on('aborted', () => resolve({ bytes, error: true }));
          },
        );
        req.on('error', () => resolve({ bytes: -1, error: true }));
        req.end();
      });
      expect(got.error).toBe(true);
      expect(got.bytes).toBeLessThan(1024 * 1024); // of the 4 MiB on offer
      expect(small.overBudget).toBe(true);
      expect(await statusVia(small, `http://127.0.0.1:${upstreamPort}/x`)).toEqual({
        status: 204,
        mark: small.token,
      });
    } finally {
      await small.close();
    }
  });

  it('counts bytes inside CONNECT tunnels against the same budget', async () => {
    const small = await proxy.openSession('budget-tunnel', { maxBytes: 256 * 1024 });
    try {
      const bytes = await new Promise<number>((resolve, reject) => {
        let n = 0;
        const s = connect(Number(new URL(small.server).port), '127.0.0.1', () =>
          s.write(
            `CONNECT 127.0.0.1:${upstreamPort} HTTP/1.1\r\nHost: 127.0.0.1:${upstreamPort}\r\nProxy-Authorization: ${authOf(small)}\r\n\r\n`,
          ),
        );
        let established = false;
        s.on('data', (d: Buffer) => {
          n += d.length;
          if (!established && String(d).startsWith('HTTP/1.1 200')) {
            established = true;
            s.write(`GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
          }
        });
        s.on('close', () => resolve(n));
        s.on('error', reject);
      });
      expect(bytes).toBeLessThan(1024 * 1024);
      expect(small.overBudget).toBe(true);
      expect(small.bytes).toBeGreaterThan(256 * 1024);
    } finally {
      await small.close();
    }
  });
});

describe('a sealed session', () => {
  it('relays nothing more, plain http or CONNECT, while other sessions go on', async () => {
    const sealed = await proxy.openSession('sealed');
    const sealedPort = Number(new URL(sealed.server).port);
    try {
      // A keep-alive connection the page already had is cut too.
      const open = connect(sealedPort, '127.0.0.1');
      await new Promise<void>((r) => open.once('connect', () => r()));
      const cut = new Promise<void>((r) => open.once('close', () => r()));
      const before = seen.length;
      sealed.seal();
      await cut;
      expect(await statusVia(sealed, `http://127.0.0.1:${upstreamPort}/after-seal`)).toEqual({
        status: 204,
        mark: sealed.token,
      });
      const line = await new Promise<string>((resolve, reject) => {
        const s = connect(sealedPort, '127.0.0.1', () =>
          s.write(
            `CONNECT 127.0.0.1:${upstreamPort} HTTP/1.1\r\nHost: 127.0.0.1:${upstreamPort}\r\nProxy-Authorization: ${authOf(sealed)}\r\n\r\n`,
          ),
        );
        s.once('data', (d) => {
          resolve(String(d).split('\r\n')[0]!);
          s.destroy();
        });
        s.on('error', reject);
      });
      expect(line).toBe('HTTP/1.1 403 Forbidden');
      expect(seen.length).toBe(before);
      // Another session of the same proxy is untouched.
      const other = await viaProxy(`http://127.0.0.1:${upstreamPort}/still-open`);
      expect(other.status).toBe(200);
      expect(other.body).toBe('hello /still-open');
    } finally {
      await sealed.close();
    }
  });
});
