/**
 * One egress session: its own loopback listener, credentials, decision record and byte budget
 * (see proxy.ts for why each browser context gets one). The relaying itself is in proxy-relay.ts.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Agent, createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { EgressDecision, EgressSession } from './proxy.js';
import { forwardRequest, openTunnel, type RelayContext } from './proxy-relay.js';
import { type CheckedTarget, type RefusalReason, type UrlGuard, UrlRefusedError } from './url-guard.js';

const MAX_REFUSALS_KEPT = 50;

/** The 407 challenge: Basic, which Chromium answers (through Playwright) with the session's credentials. */
const PROXY_CHALLENGE = 'Basic realm="cardshot egress"';

/** `host:port` with the port always written, as both CONNECT and absolute URIs can be compared. */
export function authorityOf(url: URL): string {
  const port = url.port || (url.protocol === 'https:' || url.protocol === 'wss:' ? '443' : '80');
  return `${url.hostname}:${port}`;
}

/** Opens a session listening on a 127.0.0.1 ephemeral port. */
export async function openSession(
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
  let received = 0;
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
  let sealed = false;
  let markSpent!: () => void;
  const budgetSpent = new Promise<void>((resolve) => {
    markSpent = resolve;
  });

  const track = (s: Duplex) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  };

  const cutAll = () => {
    agent.destroy();
    for (const s of sockets) s.destroy();
  };

  // Counted on the data path itself so a server that lies about Content-Length, or a tunnel we
  // cannot read into, is bounded all the same; the page keeps what it already has.
  const spend = (n: number) => {
    bytes += n;
    if (overBudget || bytes <= maxBytes) return;
    overBudget = true;
    markSpent();
    log?.warn({ session: label, bytes, maxBytes }, 'page passed its download budget: connections cut');
    cutAll();
  };
  const meter = (stream: NodeJS.ReadableStream) => stream.on('data', (chunk: Buffer) => spend(chunk.length));

  const check = async (url: URL): Promise<CheckedTarget | EgressDecision> => {
    const key = authorityOf(url);
    try {
      const target = await guard.check(url);
      decisions.set(key, { kind: 'allowed', address: target.address });
      return target;
    } catch (err) {
      // A name that does not resolve is refused like a private one (reason 'dns' in the log):
      // two answers would tell a caller which names exist in our DNS (issue 26 §3).
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

  const ctx: RelayContext = {
    token,
    agent,
    connectTimeoutMs,
    get stopped() {
      return overBudget || sealed || closed;
    },
    check,
    noteInvalid(target, detail) {
      if (refused.length < MAX_REFUSALS_KEPT) refused.push({ target, reason: 'invalid', detail });
    },
    noteUnreachable(url, code, detail) {
      decisions.set(authorityOf(url), { kind: 'unreachable', code, detail });
    },
    noteRedirect(url, location) {
      if (redirects.size < MAX_REFUSALS_KEPT) redirects.set(url, location);
    },
    meter,
    track,
  };

  const server = createServer();
  server.keepAliveTimeout = 30_000;

  // Plain http: the browser sends absolute-form requests (GET http://host/path).
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    received++;
    if (!authorized(req)) {
      noteUnauthorized(req);
      req.resume();
      res.writeHead(407, { 'proxy-authenticate': PROXY_CHALLENGE, 'content-length': '0' });
      return void res.end();
    }
    void forwardRequest(ctx, req, res);
  });
  // https, ws:, wss:, TURN and ICE-TCP: all arrive as CONNECT, on any port, so every one is checked.
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    received++;
    if (!authorized(req)) {
      noteUnauthorized(req);
      client.on('error', () => client.destroy());
      return void client.end(
        `HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: ${PROXY_CHALLENGE}\r\nContent-Length: 0\r\n\r\n`,
      );
    }
    void openTunnel(ctx, req, client, head);
  });
  // An Upgrade in absolute form never comes from Chromium (it tunnels WebSockets): refuse it.
  server.on('upgrade', (_req: IncomingMessage, client: Duplex) => {
    received++;
    client.on('error', () => client.destroy());
    client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
  });
  server.on('connection', (s: Socket) => track(s));
  server.on('clientError', (_err, s: Duplex) => {
    if (s.writable) s.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
    else s.destroy();
  });

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
    get received() {
      return received;
    },
    get challenged() {
      return unauthorized;
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
    seal() {
      if (sealed || closed) return;
      sealed = true;
      cutAll();
    },
    async close() {
      if (closed) return;
      closed = true;
      cutAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
