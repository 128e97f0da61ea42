/**
 * The filtering forward proxy Chromium is forced through: every request a page
 * makes (navigations, redirects, frames, images, scripts, fetch/XHR, WebSocket tunnels) arrives
 * here and is checked by the same URL guard as imageUrl, then connected to exactly the address
 * the guard approved. Chromium itself resolves no names (--host-resolver-rules), so nothing
 * reaches the network any other way. The flags and the pitfalls were verified on Debian's
 * Chromium 156 against 44 ways a page can reach a host (docs/security.md sums them up).
 *
 * Each browser context gets its own session (its own loopback listener), so the decision for a
 * host can be read back after a failed navigation: Chromium discards the body of a refused
 * CONNECT, so an https refusal and an unreachable https host look the same from inside the page.
 *
 * Each session also has its own random credentials, and anything that does not present them gets
 * 407: the listener is on loopback, so without them any local process (another user's, a
 * compromised neighbour) could use it as a way out that bypasses nothing but still bears
 * Cardshot's address, and could read the decisions it records (issue 20 §5).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { type CheckedTarget, type RefusalReason, type UrlGuard, UrlRefusedError } from './url-guard.js';

/** What the proxy did with the last request for one `host:port`. */
export type EgressDecision =
  | { kind: 'allowed'; address: string }
  | { kind: 'refused'; reason: RefusalReason; detail: string }
  | { kind: 'unreachable'; code: string; detail: string };

export interface EgressSession {
  /** `http://127.0.0.1:<port>`: the proxy server to give one browser context. */
  readonly server: string;
  /** The proxy credentials of this session (HTTP Basic); requests without them get 407. */
  readonly username: string;
  readonly password: string;
  /** Value of the `x-cardshot-egress` header on answers the proxy made up itself. */
  readonly token: string;
  /**
   * The Location of the last redirect relayed for `url` (plain http), if any: Chromium under
   * Playwright's proxy-auth interception reports a redirect to ftp:, mailto: … only as an
   * aborted request for `url`, without the redirect answer.
   */
  redirectFor(url: string): string | undefined;
  /** The latest decision for the URL's `host:port`, if the browser asked for it. */
  decisionFor(url: string | URL): EgressDecision | undefined;
  /** The first requests refused so far (for the log; never sent to clients). */
  readonly refused: ReadonlyArray<{ target: string; reason: RefusalReason; detail: string }>;
  /** Bytes relayed so far, both directions, every connection of this session. */
  readonly bytes: number;
  /** True once the session passed its byte budget: every connection was cut, new ones are refused. */
  readonly overBudget: boolean;
  /** Settles when the session passes its byte budget (never, if it does not). */
  readonly budgetSpent: Promise<void>;
  /** Stops listening and cuts every connection of this session. */
  close(): Promise<void>;
}

export interface EgressProxy {
  /** A new listener with its own decision record (and byte budget, unless overridden). */
  openSession(label: string, opts?: { maxBytes?: number }): Promise<EgressSession>;
  /** Closes every open session. */
  close(): Promise<void>;
}

export interface EgressProxyOptions {
  guard: UrlGuard;
  log?: Logger;
  /** Time allowed to open a TCP connection upstream. */
  connectTimeoutMs?: number;
  /**
   * Bytes one session may relay (request and response bodies and tunnels, both directions).
   * A hostile page could otherwise turn a screenshot into an unbounded download on our link.
   */
  maxBytesPerSession?: number;
}

const MAX_REFUSALS_KEPT = 50;

/** The 407 challenge: Basic, which Chromium answers (through Playwright) with the session's credentials. */
const PROXY_CHALLENGE = 'Basic realm="cardshot egress"';

/** Header that marks an answer made by the proxy; stripped from upstream answers so no page can forge it. */
export const EGRESS_HEADER = 'x-cardshot-egress';

// Hop-by-hop headers (RFC 9110 §7.6.1) plus the proxy-only ones: never forwarded either way.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Creates the proxy; sessions listen on 127.0.0.1 ephemeral ports. */
export function createEgressProxy(opts: EgressProxyOptions): EgressProxy {
  const sessions = new Set<EgressSession>();
  const connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
  return {
    async openSession(label, sessionOpts = {}) {
      const maxBytes = sessionOpts.maxBytes ?? opts.maxBytesPerSession ?? Number.POSITIVE_INFINITY;
      const session = await openSession(opts.guard, label, connectTimeoutMs, maxBytes, opts.log);
      sessions.add(session);
      const close = session.close.bind(session);
      return Object.assign(session, {
        close: async () => {
          sessions.delete(session);
          await close();
        },
      });
    },
    async close() {
      await Promise.all([...sessions].map((s) => s.close()));
    },
  };
}

/** `host:port` with the port always written, as both CONNECT and absolute URIs can be compared. */
export function authorityOf(url: URL): string {
  const port = url.port || (url.protocol === 'https:' || url.protocol === 'wss:' ? '443' : '80');
  return `${url.hostname}:${port}`;
}

async function openSession(
  guard: UrlGuard,
  label: string,
  connectTimeoutMs: number,
  maxBytes: number,
  log?: Logger,
): Promise<EgressSession> {
  const token = randomBytes(12).toString('hex');
  const username = `cardshot-${randomBytes(6).toString('hex')}`;
  const password = randomBytes(24).toString('base64url');
  const expected = Buffer.from(`Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`);
  /** Constant-time check of `Proxy-Authorization`; the scheme name is case-insensitive. */
  const authorized = (req: IncomingMessage): boolean => {
    const got = req.headers['proxy-authorization'];
    if (typeof got !== 'string') return false;
    const presented = Buffer.from(got.replace(/^basic /i, 'Basic '));
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  };
  let unauthorized = 0;
  const noteUnauthorized = (req: IncomingMessage) => {
    // Chromium's first request of a context is always challenged once: only later ones are news.
    if (++unauthorized > 1 && unauthorized <= MAX_REFUSALS_KEPT) {
      log?.debug(
        {
          session: label,
          method: req.method,
          credentials: req.headers['proxy-authorization'] ? 'wrong' : 'none',
        },
        'egress request without valid proxy credentials',
      );
    }
  };
  const decisions = new Map<string, EgressDecision>();
  const redirects = new Map<string, string>();
  const refused: Array<{ target: string; reason: RefusalReason; detail: string }> = [];
  const sockets = new Set<Duplex>();
  // Keep-alive to upstream saves a handshake per sub-resource; sockets are keyed by the pinned
  // address, and every request is checked by the guard before one is reused.
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  let closed = false;
  let bytes = 0;
  let overBudget = false;
  let markSpent!: () => void;
  const budgetSpent = new Promise<void>((resolve) => {
    markSpent = resolve;
  });

  const track = (s: Duplex) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };

  // Counted on the data path itself so a server that lies about Content-Length, or a tunnel we
  // cannot read into, is bounded all the same; the page keeps what it already has.
  const spend = (n: number) => {
    bytes += n;
    if (overBudget || bytes <= maxBytes) return;
    overBudget = true;
    markSpent();
    log?.warn({ session: label, bytes, maxBytes }, 'page passed its download budget: connections cut');
    agent.destroy();
    for (const s of sockets) s.destroy();
  };
  const meter = (stream: NodeJS.ReadableStream) => stream.on('data', (chunk: Buffer) => spend(chunk.length));

  const check = async (url: URL): Promise<CheckedTarget | EgressDecision> => {
    const key = authorityOf(url);
    try {
      const target = await guard.check(url);
      decisions.set(key, { kind: 'allowed', address: target.address });
      return target;
    } catch (err) {
      if (err instanceof UrlRefusedError && err.reason === 'dns') {
        const d: EgressDecision = { kind: 'unreachable', code: 'ENOTFOUND', detail: err.detail };
        decisions.set(key, d);
        return d;
      }
      const reason = err instanceof UrlRefusedError ? err.reason : 'invalid';
      const detail = err instanceof UrlRefusedError ? err.detail : String(err);
      const d: EgressDecision = { kind: 'refused', reason, detail };
      decisions.set(key, d);
      // Bounded: a page can make thousands of refused requests; the first ones tell the story.
      if (refused.length < MAX_REFUSALS_KEPT) refused.push({ target: key, reason, detail });
      log?.debug({ session: label, target: key, reason, detail }, 'egress refused');
      return d;
    }
  };

  const server = createServer();
  server.keepAliveTimeout = 30_000;

  // Plain http: the browser sends absolute-form requests (GET http://host/path).
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!authorized(req)) {
      noteUnauthorized(req);
      req.resume();
      res.writeHead(407, { 'proxy-authenticate': PROXY_CHALLENGE, 'content-length': '0' });
      return void res.end();
    }
    void forward(req, res);
  });
  // https, ws:, wss:, TURN and ICE-TCP: all arrive as CONNECT, on any port, so every one is checked.
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    if (!authorized(req)) {
      noteUnauthorized(req);
      client.on('error', () => client.destroy());
      return void client.end(
        `HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: ${PROXY_CHALLENGE}\r\nContent-Length: 0\r\n\r\n`,
      );
    }
    void tunnel(req, client, head);
  });
  // An Upgrade in absolute form never comes from Chromium (it tunnels WebSockets): refuse it.
  server.on('upgrade', (_req: IncomingMessage, client: Duplex) => {
    client.on('error', () => client.destroy());
    client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
  });
  server.on('connection', (s: Socket) => track(s));
  server.on('clientError', (_err, s: Duplex) => {
    if (s.writable) s.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
    else s.destroy();
  });

  // Refused and unreachable plain-http targets get 204: Chromium does not navigate to a 204, so
  // a page that sends itself to such a URL (meta refresh, location=…) stays where it was, and a
  // top-level load fails with net::ERR_ABORTED, which the decision record then explains. An
  // error status would make Chromium show its own error page, which must never be screenshotted.
  const proxyAnswer = (res: ServerResponse, status: number) => {
    if (res.headersSent) return void res.destroy();
    res.writeHead(status, { [EGRESS_HEADER]: token, 'content-length': '0', 'cache-control': 'no-store' });
    res.end();
  };

  async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      // Origin-form (GET /path) would mean a page aimed at the proxy's own port: refuse it.
      if (!/^http:\/\//i.test(req.url ?? '')) throw new Error('not absolute-form');
      url = new URL(req.url ?? '');
    } catch {
      if (refused.length < MAX_REFUSALS_KEPT) {
        refused.push({
          target: String(req.url).slice(0, 200),
          reason: 'invalid',
          detail: 'not absolute-form',
        });
      }
      return proxyAnswer(res, 400);
    }
    if (overBudget) return proxyAnswer(res, 204);
    const target = await check(url);
    if (!('url' in target)) return proxyAnswer(res, 204);
    const headers = forwardHeaders(req.headers);
    const upstream = httpRequest({
      host: target.address,
      family: target.family,
      port: target.port,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers: { ...headers, host: url.host },
      agent,
      setHost: false,
      timeout: connectTimeoutMs,
    });
    upstream.on('timeout', () =>
      upstream.destroy(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' })),
    );
    // The time-out is for connecting only. Once connected, a slow server may take as long as the
    // capture's own deadline allows: that deadline closes the page, and with it this request.
    upstream.on('socket', (socket: Socket) => {
      if (!socket.connecting) upstream.setTimeout(0);
      else socket.once('connect', () => upstream.setTimeout(0));
    });
    upstream.on('response', (up) => {
      upstream.setTimeout(0);
      const location = up.headers.location;
      const status = up.statusCode ?? 0;
      if (status >= 300 && status < 400 && location && redirects.size < MAX_REFUSALS_KEPT) {
        redirects.set(url.href, location);
      }
      res.writeHead(up.statusCode ?? 502, up.statusMessage, responseHeaders(up.rawHeaders));
      meter(up);
      up.pipe(res);
      up.on('error', () => res.destroy());
    });
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      decisions.set(authorityOf(url), {
        kind: 'unreachable',
        code: err.code ?? 'ERROR',
        detail: `${url.host}: ${err.message}`,
      });
      proxyAnswer(res, 204);
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    meter(req);
    req.pipe(upstream);
  }

  async function tunnel(req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    client.on('error', () => client.destroy());
    const authority = req.url ?? '';
    let url: URL;
    try {
      if (!/^(\[[0-9a-fA-F:.]+\]|[^:/?#@\s[\]]+):\d{1,5}$/.test(authority)) throw new Error('bad authority');
      // https:// gives the guard a URL with the port spelled out unless it is 443.
      url = new URL(`https://${authority}/`);
    } catch {
      if (refused.length < MAX_REFUSALS_KEPT) {
        refused.push({ target: authority.slice(0, 200), reason: 'invalid', detail: 'bad CONNECT target' });
      }
      return void client.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
    }
    if (overBudget) return void client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
    const target = await check(url);
    if (!('url' in target)) {
      const line = target.kind === 'refused' ? '403 Forbidden' : '502 Bad Gateway';
      return void client.end(`HTTP/1.1 ${line}\r\nContent-Length: 0\r\n\r\n`);
    }
    if (closed || client.destroyed) return;
    const upstream = connect({ host: target.address, port: target.port, family: target.family });
    track(upstream);
    upstream.setTimeout(connectTimeoutMs, () =>
      upstream.destroy(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' })),
    );
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      upstream.setTimeout(0);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      meter(upstream);
      meter(client);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (!connected) {
        decisions.set(authorityOf(url), {
          kind: 'unreachable',
          code: err.code ?? 'ERROR',
          detail: `${authority}: ${err.message}`,
        });
        client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
      } else client.destroy();
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    server: `http://127.0.0.1:${port}`,
    username,
    password,
    token,
    refused,
    get bytes() {
      return bytes;
    },
    get overBudget() {
      return overBudget;
    },
    budgetSpent,
    redirectFor(input) {
      return redirects.get(input);
    },
    decisionFor(input) {
      try {
        return decisions.get(authorityOf(new URL(String(input))));
      } catch {
        return undefined;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      agent.destroy();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function forwardHeaders(h: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  // Headers named in Connection are hop-by-hop too.
  const named = new Set(
    String(h.connection ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined || HOP_BY_HOP.has(k) || named.has(k) || k === 'host') continue;
    out[k] = v;
  }
  return out;
}

/** Upstream headers minus hop-by-hop ones and our own marker, keeping repeats (Set-Cookie). */
function responseHeaders(raw: string[]): string[] {
  const connection = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === 'connection') {
      for (const t of raw[i + 1]!.split(',')) connection.add(t.trim().toLowerCase());
    }
  }
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || connection.has(name) || name === EGRESS_HEADER) continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}
