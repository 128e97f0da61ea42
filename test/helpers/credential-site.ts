import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Two origins for POST /render/url's credentials (issue 29 §2), both on loopback:
 *
 * The signed-in site, `http://127.0.0.1:<port>`:
 * - /account: green (#00ff00) with status 200 only when the request carried the cookie
 *   `session=SESSION`, the header `X-Token: TOKEN` and Basic auth `ada:lovelace` (each one
 *   checked alone by `/account?need=cookie|header|basic|agent`); red and 401 otherwise. It shows
 *   an image of the other origin and fetches /api/me of its own with `fetch()`.
 * - /away: a 302 to the other origin's /landed.
 *
 * The other origin, `http://localhost:<port>`: /pixel.png and /landed; it records the headers
 * of every request it gets, so a test proves it received no credential.
 */
export const SESSION = 'sess-3f9a1c-SECRET';
export const TOKEN = 'tok-77d2e0-SECRET';
export const BASIC = { username: 'ada', password: 'lovelace-SECRET' };
export const AGENT = 'CardshotTest/1.0 (signed-in)';

export interface CredentialSite {
  url: string;
  hostPort: string;
  other: { url: string; hostPort: string; seen: IncomingHttpHeaders[] };
  /** Headers of the requests the signed-in site got, by path. */
  seen: Map<string, IncomingHttpHeaders[]>;
  close(): Promise<void>;
}

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

function checks(h: IncomingHttpHeaders): Record<string, boolean> {
  const basic = `Basic ${Buffer.from(`${BASIC.username}:${BASIC.password}`).toString('base64')}`;
  return {
    cookie: (h.cookie ?? '').split(/;\s*/).includes(`session=${SESSION}`),
    header: h['x-token'] === TOKEN,
    basic: h.authorization === basic,
    agent: h['user-agent'] === AGENT,
  };
}

function listen(server: Server, host: string): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port)),
  );
}

export async function startCredentialSite(): Promise<CredentialSite> {
  const seen = new Map<string, IncomingHttpHeaders[]>();
  const otherSeen: IncomingHttpHeaders[] = [];
  const other = createServer((req, res) => {
    otherSeen.push(req.headers);
    if ((req.url ?? '').startsWith('/pixel.png')) {
      res.writeHead(200, { 'content-type': 'image/png' });
      return res.end(PNG);
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><body style="margin:0;background:#0000ff;height:100vh"></body>');
  });
  const otherPort = await listen(other, '127.0.0.1');
  const otherUrl = `http://localhost:${otherPort}`;
  const site = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://site');
    seen.set(u.pathname, [...(seen.get(u.pathname) ?? []), req.headers]);
    const got = checks(req.headers);
    if (u.pathname === '/away') {
      res.writeHead(302, { location: `${otherUrl}/landed` });
      return res.end();
    }
    if (u.pathname === '/api/me') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify(got));
    }
    if (u.pathname === '/account') {
      const need = u.searchParams.get('need');
      const ok = need ? got[need] === true : got.cookie && got.header && got.basic;
      res.writeHead(ok ? 200 : 401, { 'content-type': 'text/html' });
      return res.end(
        `<!doctype html><html><head><title>account</title></head><body style="margin:0;height:100vh;background:${ok ? '#00ff00' : '#ff0000'}"><img src="${otherUrl}/pixel.png" width="1" height="1"><script>fetch('/api/me').catch(() => {})</script></body></html>`,
      );
    }
    res.writeHead(404);
    res.end();
  });
  const port = await listen(site, '127.0.0.1');
  const stop = (s: Server) => new Promise<void>((r) => s.close(() => r()));
  return {
    url: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    other: { url: otherUrl, hostPort: `localhost:${otherPort}`, seen: otherSeen },
    seen,
    close: async () => {
      site.closeAllConnections();
      other.closeAllConnections();
      await Promise.all([stop(site), stop(other)]);
    },
  };
}
