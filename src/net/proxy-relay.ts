/**
 * What the egress proxy does with one authorised request: plain http is relayed (forward), every
 * CONNECT is tunnelled, each only after the session's guard check. proxy-session.ts owns the state.
 */
import type { Agent, IncomingMessage, ServerResponse } from 'node:http';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { EgressDecision } from './proxy.js';
import { EGRESS_HEADER, forwardHeaders, responseHeaders } from './proxy-headers.js';
import type { CheckedTarget } from './url-guard.js';

/** The part of a session the relays read and write. */
export interface RelayContext {
  readonly token: string;
  readonly agent: Agent;
  readonly connectTimeoutMs: number;
  /** True once nothing more may go out: the budget is spent, or the session sealed or closed. */
  readonly stopped: boolean;
  /** Asks the guard and records the decision for the URL's `host:port`. */
  check(url: URL): Promise<CheckedTarget | EgressDecision>;
  /** Records a target that could not be parsed (bounded, like every refusal record). */
  noteInvalid(target: string, detail: string): void;
  /** Records a connect failure as the decision for the URL's `host:port`. */
  noteUnreachable(url: URL, code: string, detail: string): void;
  /** Remembers the Location of a relayed redirect (bounded). */
  noteRedirect(url: string, location: string): void;
  /** Counts the stream's bytes against the session's budget. */
  meter(stream: NodeJS.ReadableStream): void;
  /** Keeps the socket so closing the session (or its budget) can cut it. */
  track(s: Duplex): void;
}

// Refused and unreachable plain-http targets get 204: Chromium does not navigate to a 204, so
// a page that sends itself to such a URL (meta refresh, location=…) stays where it was, and a
// top-level load fails with net::ERR_ABORTED, which the decision record then explains. An
// error status would make Chromium show its own error page, which must never be screenshotted.
function proxyAnswer(ctx: RelayContext, res: ServerResponse, status: number): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { [EGRESS_HEADER]: ctx.token, 'content-length': '0', 'cache-control': 'no-store' });
  res.end();
}

/** Relays one absolute-form plain-http request to the address the guard approved. */
export async function forwardRequest(
  ctx: RelayContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  let url: URL;
  try {
    // Origin-form (GET /path) would mean a page aimed at the proxy's own port: refuse it.
    if (!/^http:\/\//i.test(req.url ?? '')) throw new Error('not absolute-form');
    url = new URL(req.url ?? '');
  } catch {
    ctx.noteInvalid(String(req.url).slice(0, 200), 'not absolute-form');
    return proxyAnswer(ctx, res, 400);
  }
  if (ctx.stopped) return proxyAnswer(ctx, res, 204);
  const target = await ctx.check(url);
  // Stopped while the guard was asked (sealed, out of budget): it never goes out.
  if (!('url' in target) || ctx.stopped) return proxyAnswer(ctx, res, 204);
  const headers = forwardHeaders(req.headers);
  const upstream = httpRequest({
    host: target.address,
    family: target.family,
    port: target.port,
    method: req.method,
    path: `${url.pathname}${url.search}`,
    headers: { ...headers, host: url.host },
    agent: ctx.agent,
    setHost: false,
    timeout: ctx.connectTimeoutMs,
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
    if (status >= 300 && status < 400 && location) ctx.noteRedirect(url.href, location);
    res.writeHead(up.statusCode ?? 502, up.statusMessage, responseHeaders(up.rawHeaders));
    ctx.meter(up);
    up.pipe(res);
    up.on('error', () => res.destroy());
  });
  upstream.on('error', (err: NodeJS.ErrnoException) => {
    ctx.noteUnreachable(url, err.code ?? 'ERROR', `${url.host}: ${err.message}`);
    proxyAnswer(ctx, res, 204);
  });
  res.on('close', () => {
    if (!res.writableFinished) upstream.destroy();
  });
  ctx.meter(req);
  req.pipe(upstream);
}

/** Opens a CONNECT tunnel (https, ws:, wss:, TURN, ICE-TCP) to the address the guard approved. */
export async function openTunnel(
  ctx: RelayContext,
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
): Promise<void> {
  client.on('error', () => client.destroy());
  const authority = req.url ?? '';
  let url: URL;
  try {
    if (!/^(\[[0-9a-fA-F:.]+\]|[^:/?#@\s[\]]+):\d{1,5}$/.test(authority)) throw new Error('bad authority');
    // https:// gives the guard a URL with the port spelled out unless it is 443.
    url = new URL(`https://${authority}/`);
  } catch {
    ctx.noteInvalid(authority.slice(0, 200), 'bad CONNECT target');
    return void client.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
  }
  if (ctx.stopped) return void client.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
  const target = await ctx.check(url);
  if (!('url' in target)) {
    const line = target.kind === 'refused' ? '403 Forbidden' : '502 Bad Gateway';
    return void client.end(`HTTP/1.1 ${line}\r\nContent-Length: 0\r\n\r\n`);
  }
  if (ctx.stopped || client.destroyed) return void client.destroy();
  const upstream = connect({ host: target.address, port: target.port, family: target.family });
  ctx.track(upstream);
  upstream.setTimeout(ctx.connectTimeoutMs, () =>
    upstream.destroy(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' })),
  );
  let connected = false;
  upstream.once('connect', () => {
    connected = true;
    upstream.setTimeout(0);
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    ctx.meter(upstream);
    ctx.meter(client);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on('error', (err: NodeJS.ErrnoException) => {
    if (!connected) {
      ctx.noteUnreachable(url, err.code ?? 'ERROR', `${authority}: ${err.message}`);
      client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
    } else client.destroy();
  });
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
}
