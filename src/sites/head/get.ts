/**
 * A GET through the URL guard that keeps what a diagnosis needs and net/fetch.ts throws away:
 * every redirect hop (each one checked by the guard again), the final status whatever it is,
 * the headers, and the first bytes of the body, read until `enough` says so or `maxBytes`.
 * The rest of the body is never read: a page whose head is 5 MB costs 1 MB, one that never
 * ends costs the time-out.
 */
import { FetchError, pinnedClient, raceAbort } from '../../net/fetch.js';
import { type UrlGuard, UrlRefusedError } from '../../net/url-guard.js';

/** One answer on the way: a redirect, or the last one. */
export interface Hop {
  url: string;
  status: number;
}

/** The last answer and the way to it. */
export interface GetResult {
  /** Every answer in order, the last included. */
  chain: Hop[];
  finalUrl: string;
  status: number;
  headers: Record<string, string | undefined>;
  body: Buffer;
  /** True when the body was cut at `maxBytes` before `enough` said so or the body ended. */
  truncated: boolean;
  /** Bytes the body declared (Content-Length), when it did. */
  declaredBytes: number | undefined;
  /** Bytes seen on the wire (up to `countBytes`), for a size check without keeping them. */
  seenBytes: number;
}

export interface GetOptions {
  userAgent: string;
  accept: string;
  timeoutMs: number;
  /** Body bytes kept. */
  maxBytes: number;
  /** Past `maxBytes`, keep reading (without keeping) up to this many to learn the size. */
  countBytes?: number;
  maxRedirects: number;
  /** The only certificate authority https servers may be signed by (test fixtures); the system's otherwise. */
  ca?: string;
  /** Called with each part of the body kept, in order; true stops reading. */
  enough?: (part: Buffer) => boolean;
  /** Where redirects may go (a site's card reads stay on the site's origins); anywhere when absent. */
  followable?: (url: URL) => boolean;
  signal?: AbortSignal;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** GETs `url` through `guard`; throws FetchError (`refused`, `timeout`, `network`, `too_many_redirects`). */
export async function guardedGet(guard: UrlGuard, url: string, o: GetOptions): Promise<GetResult> {
  o.signal?.throwIfAborted();
  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort(new Error('deadline'));
  }, o.timeoutMs);
  const forward = () => abort.abort(o.signal?.reason);
  o.signal?.addEventListener('abort', forward, { once: true });
  const chain: Hop[] = [];
  try {
    let next: URL = new URL(url);
    for (let hop = 0; ; hop++) {
      const target = await raceAbort(guard.check(next), abort.signal);
      const client = pinnedClient(target, o.ca ? { ca: o.ca } : {});
      try {
        const res = await client.request({
          method: 'GET',
          path: `${target.url.pathname}${target.url.search}`,
          // No cookies, no credentials, nothing of the caller's: the crawler's own request.
          headers: { 'user-agent': o.userAgent, accept: o.accept, 'accept-encoding': 'identity' },
          signal: abort.signal,
        });
        chain.push({ url: target.url.href, status: res.statusCode });
        const headers = flatten(res.headers);
        const location = headers.location;
        if (REDIRECTS.has(res.statusCode) && location !== undefined) {
          dropBody(res.body);
          if (hop >= o.maxRedirects) {
            throw new FetchError('too_many_redirects', `more than ${o.maxRedirects} redirects`);
          }
          next = redirectTarget(location, target.url);
          if (o.followable && !o.followable(next)) {
            throw new FetchError('refused', `redirect to ${next.origin} leaves the allowed origins`);
          }
          continue;
        }
        const declared = Number(headers['content-length']);
        // A declared length needs no counting: keep what is asked for and stop.
        const read = await readSome(res.body, Number.isFinite(declared) ? { ...o, countBytes: 0 } : o);
        return {
          chain,
          finalUrl: target.url.href,
          status: res.statusCode,
          headers,
          ...read,
          declaredBytes: Number.isFinite(declared) && declared >= 0 ? declared : undefined,
        };
      } finally {
        await client.destroy().catch(() => {});
      }
    }
  } catch (err) {
    if (timedOut)
      throw Object.assign(new FetchError('timeout', `no answer within ${o.timeoutMs} ms`), { chain });
    if (o.signal?.aborted) throw o.signal.reason;
    throw Object.assign(toFetchError(err), { chain });
  } finally {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', forward);
  }
}

/** The hops a failed fetch made before it failed (empty when it failed before any answer). */
export function chainOf(err: unknown): Hop[] {
  return (err as { chain?: Hop[] }).chain ?? [];
}

function redirectTarget(location: string, base: URL): URL {
  try {
    return new URL(location, base);
  } catch {
    throw new FetchError('network', `invalid redirect Location ${JSON.stringify(location)}`);
  }
}

type Body = AsyncIterable<unknown> & { destroy(): void; on(event: 'error', f: () => void): unknown };

/** Reads until `enough`, `maxBytes` kept, or `countBytes` seen; the rest is dropped unread. */
async function readSome(
  body: Body,
  o: GetOptions,
): Promise<{ body: Buffer; truncated: boolean; seenBytes: number }> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let seen = 0;
  let truncated = false;
  const countTo = Math.max(o.countBytes ?? 0, o.maxBytes);
  try {
    for await (const data of body) {
      const chunk = data as Buffer;
      seen += chunk.length;
      if (kept < o.maxBytes) {
        const part = chunk.subarray(0, o.maxBytes - kept);
        chunks.push(part);
        kept += part.length;
        if (o.enough?.(part)) break;
      }
      if (kept >= o.maxBytes && seen > o.maxBytes) truncated = true;
      if (seen >= countTo && truncated) break;
    }
  } finally {
    dropBody(body);
  }
  return { body: Buffer.concat(chunks, kept), truncated, seenBytes: seen };
}

function dropBody(body: Body): void {
  body.on('error', () => {});
  body.destroy();
}

function flatten(h: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(h)) out[k.toLowerCase()] = Array.isArray(v) ? v[0] : v;
  return out;
}

function toFetchError(err: unknown): FetchError {
  if (err instanceof FetchError) return err;
  if (err instanceof UrlRefusedError) return new FetchError('refused', err.detail, { cause: err });
  const e = err as { code?: string; message?: string };
  return new FetchError('network', `${e.code ?? 'error'}: ${e.message ?? String(err)}`, { cause: err });
}
