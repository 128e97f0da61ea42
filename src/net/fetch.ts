import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { buildConnector, Client } from 'undici';
import { type CheckedTarget, type UrlGuard, UrlRefusedError } from './url-guard.js';

export type FetchErrorKind =
  | 'refused'
  | 'timeout'
  | 'too_large'
  | 'http_status'
  | 'network'
  | 'too_many_redirects'
  | 'over_budget';

/** A failed guarded fetch. `detail` is for the log only (it may name internal addresses). */
export class FetchError extends Error {
  readonly kind: FetchErrorKind;
  readonly status: number | undefined;
  readonly detail: string;

  constructor(kind: FetchErrorKind, detail: string, opts: { status?: number; cause?: unknown } = {}) {
    super(`fetch failed (${kind}): ${detail}`, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'FetchError';
    this.kind = kind;
    this.status = opts.status;
    this.detail = detail;
  }
}

export interface SafeFetcherOptions {
  guard: UrlGuard;
  /** Total budget: DNS, connect, every redirect hop, headers and body. */
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  userAgent?: string;
}

/**
 * Memory shared by several fetches, kept by the caller: told the body's declared length before
 * any of it is read (so a reservation can shrink to it), and asked before each chunk is kept.
 */
export interface ByteBudget {
  /** The body declares `n` bytes (Content-Length). */
  declare?(n: number): void;
  /** May `n` more bytes be kept? false stops the fetch with `over_budget`. */
  take(n: number): boolean;
}

export interface FetchResult {
  bytes: Buffer;
  contentType: string | undefined;
  finalUrl: string;
  status: number;
}

export interface SafeFetcher {
  /** GETs `url` through the guard; throws FetchError, or the caller's abort reason. */
  fetch(
    url: string | URL,
    opts?: {
      signal?: AbortSignal;
      accept?: string;
      budget?: ByteBudget;
      /** A smaller body limit for this call (a logo's 1 MB), never a larger one. */
      maxBytes?: number;
    },
  ): Promise<FetchResult>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Bodies up to this size are gathered in chunks; larger ones go into one buffer. */
const SPILL_BYTES = 1024 * 1024;

// Any name resolution inside the socket layer would bypass the guard; targets are IP literals,
// so this is never called unless something upstream changes.
const noLookup: LookupFunction = (hostname, _opts, cb) => {
  cb(
    Object.assign(new Error(`refusing to resolve ${hostname} at connect time`), { code: 'ENOTFOUND' }),
    '',
    4,
  );
};

/** Creates a fetcher that connects only to guard-checked addresses, with size, time and hop limits. */
export function createSafeFetcher(opts: SafeFetcherOptions): SafeFetcher {
  const timeoutMs = opts.timeoutMs ?? 5000;
  const limit = opts.maxBytes ?? 10 * 1024 * 1024;
  const maxRedirects = opts.maxRedirects ?? 3;
  const userAgent = opts.userAgent ?? 'Cardshot/0.1';

  return {
    async fetch(input, { signal, accept, budget, maxBytes: callMax } = {}) {
      signal?.throwIfAborted();
      const maxBytes = Math.min(callMax ?? limit, limit);
      // One controller for the whole fetch; the caller's signal is forwarded by hand rather than
      // with AbortSignal.any, which leaks dependants of a long-lived signal on some Node 20 releases.
      const abort = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        abort.abort(new Error('deadline'));
      }, timeoutMs);
      const forward = () => abort.abort(signal?.reason);
      signal?.addEventListener('abort', forward, { once: true });
      const combined = abort.signal;
      try {
        let url: string | URL = input;
        for (let hop = 0; ; hop++) {
          const target = await raceAbort(opts.guard.check(url), combined);
          const res = await requestOnce(target, { signal: combined, userAgent, accept, maxBytes, budget });
          if (res.kind === 'done') return res.result;
          if (hop >= maxRedirects) {
            throw new FetchError(
              'too_many_redirects',
              `more than ${maxRedirects} redirects, last to ${res.location}`,
            );
          }
          try {
            url = new URL(res.location, target.url);
          } catch {
            throw new FetchError('network', `invalid redirect Location ${JSON.stringify(res.location)}`);
          }
        }
      } catch (err) {
        // Decide by what fired, not by the error's shape: undici, streams and our race each
        // report an abort differently.
        if (timedOut) throw new FetchError('timeout', `no complete answer within ${timeoutMs} ms`);
        if (signal?.aborted) throw signal.reason;
        throw toFetchError(err);
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', forward);
      }
    },
  };
}

type HopResult = { kind: 'done'; result: FetchResult } | { kind: 'redirect'; location: string };

/** One request on a fresh connection pinned to the checked address. */
async function requestOnce(
  target: CheckedTarget,
  o: {
    signal: AbortSignal;
    userAgent: string;
    accept: string | undefined;
    maxBytes: number;
    budget: ByteBudget | undefined;
  },
): Promise<HopResult> {
  const client = pinnedClient(target);
  try {
    const res = await client.request({
      method: 'GET',
      path: `${target.url.pathname}${target.url.search}`,
      // Only these headers: no cookies, no credentials, nothing from the incoming request.
      // identity: we count and cap the bytes we get, and a compressed body could inflate past it.
      headers: { 'user-agent': o.userAgent, accept: o.accept ?? '*/*', 'accept-encoding': 'identity' },
      signal: o.signal,
    });
    const location = header(res.headers.location);
    if (REDIRECTS.has(res.statusCode) && location !== undefined) {
      discard(res.body);
      return { kind: 'redirect', location };
    }
    if (res.statusCode < 200 || res.statusCode > 299) {
      discard(res.body);
      throw new FetchError('http_status', `HTTP ${res.statusCode} from ${target.url.href}`, {
        status: res.statusCode,
      });
    }
    const declared = Number(header(res.headers['content-length']));
    if (Number.isFinite(declared) && declared > o.maxBytes) {
      discard(res.body);
      throw new FetchError('too_large', `Content-Length ${declared} > ${o.maxBytes}`);
    }
    if (Number.isFinite(declared) && declared >= 0) o.budget?.declare?.(declared);
    const bytes = await readCapped(res.body, declared, o.maxBytes, o.budget);
    const result = {
      bytes,
      contentType: header(res.headers['content-type']),
      finalUrl: target.url.href,
      status: res.statusCode,
    };
    return { kind: 'done', result };
  } finally {
    await client.destroy().catch(() => {});
  }
}

type Body = AsyncIterable<unknown> & NodeJS.ReadableStream & { destroy(): void };

/** Reads a body within the byte cap and the shared budget; `declared` is NaN when absent. */
async function readCapped(
  body: Body,
  declared: number,
  maxBytes: number,
  budget: ByteBudget | undefined,
): Promise<Buffer> {
  // A large body is written straight into one buffer (of its declared length, or of the cap
  // once an undeclared one passes SPILL_BYTES: pages never written take no memory), so the
  // chunks are garbage at once instead of all of them and their concatenation alive together.
  const declaredOk = Number.isFinite(declared) && declared > 0;
  let whole = declaredOk && declared > SPILL_BYTES ? Buffer.allocUnsafe(declared) : undefined;
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const data of body) {
    const chunk = data as Buffer;
    total += chunk.length;
    refuseChunk(body, total, chunk.length, maxBytes, budget);
    if (!whole && total > SPILL_BYTES) {
      whole = Buffer.allocUnsafe(declaredOk ? declared : maxBytes);
      let at = 0;
      for (const c of chunks.splice(0)) at += c.copy(whole, at);
    }
    if (!whole) chunks.push(chunk);
    else if (total <= whole.length) chunk.copy(whole, total - chunk.length);
    else {
      discard(body);
      throw new FetchError('network', `body longer than its Content-Length ${declared}`);
    }
  }
  return whole ? whole.subarray(0, total) : Buffer.concat(chunks, total);
}

/**
 * Checked per chunk so a server that lies about (or omits) Content-Length costs us at most one
 * chunk past the cap.
 */
function refuseChunk(body: Body, total: number, size: number, maxBytes: number, budget?: ByteBudget): void {
  if (total > maxBytes) {
    discard(body);
    throw new FetchError('too_large', `body passed ${maxBytes} bytes while streaming`);
  }
  if (budget && !budget.take(size)) {
    discard(body);
    throw new FetchError('over_budget', `no room for more than ${total - size} bytes`);
  }
}

/**
 * A one-connection client for the target's origin whose socket goes to the checked IP (shared
 * with net/post.ts). The
 * origin (and so the Host header and the TLS server name, from which the certificate is
 * verified) stays the URL's host name; only the address the socket dials is replaced.
 */
export function pinnedClient(target: CheckedTarget, tls: { ca?: string } = {}): Client {
  // `ca`: an extra certificate authority a test fixture's https server is signed by (the
  // system's stay trusted only when it is absent: tests hand their own in).
  const base = buildConnector({ lookup: noLookup, ...(tls.ca ? { ca: tls.ca } : {}) });
  const host = target.url.hostname;
  const servername = target.url.protocol === 'https:' && isIP(host) === 0 ? host : undefined;
  return new Client(target.url.origin, {
    connect: (connectOpts, cb) => base({ ...connectOpts, hostname: target.address, servername }, cb),
    pipelining: 1,
  });
}

/** Drops a body we will not read; undici reports that as an error nobody needs to hear. */
function discard(body: NodeJS.ReadableStream & { destroy(): void }): void {
  body.on('error', () => {});
  body.destroy();
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function toFetchError(err: unknown): FetchError {
  if (err instanceof FetchError) return err;
  if (err instanceof UrlRefusedError) {
    // A name that does not resolve gets the refusal too: "could not be reached" beside "not
    // allowed" would tell which names exist in our DNS, internal ones included (issue 26 §3).
    return new FetchError('refused', err.detail, { cause: err });
  }
  const e = err as { code?: string; message?: string };
  return new FetchError('network', `${e.code ?? 'error'}: ${e.message ?? String(err)}`, { cause: err });
}

/** Rejects with the signal's reason as soon as it aborts; the losing promise is silenced. */
export function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    p.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
