import { pinnedClient, raceAbort } from './fetch.js';
import { type UrlGuard, UrlRefusedError } from './url-guard.js';

/**
 * One POST to a URL someone else chose (a webhook receiver), through the URL guard: the name is
 * resolved and checked once and the socket dials exactly the checked address (so DNS rebinding
 * between the check and the connect reaches nothing new). Redirects are never followed: a 3xx is
 * just the answer. At most `maxBytes` of the answer are read; the rest is dropped unread.
 */

export type PostFailure = 'refused' | 'timeout' | 'network';

/** What came back, or why nothing did. `detail` may name internal addresses: log only. */
export type PostResult =
  | {
      ok: true;
      status: number;
      headers: Record<string, string | string[] | undefined>;
      /** The first `maxBytes` of the body. */
      body: Buffer;
      durationMs: number;
    }
  | { ok: false; failure: PostFailure; detail: string; durationMs: number };

export interface GuardedPoster {
  post(
    url: string,
    body: string,
    opts: { headers: Record<string, string>; timeoutMs: number; maxBytes: number; signal?: AbortSignal },
  ): Promise<PostResult>;
}

/** Creates the poster over `guard`; `userAgent` is the only header besides the caller's. */
export function createGuardedPoster(opts: { guard: UrlGuard; userAgent?: string }): GuardedPoster {
  const userAgent = opts.userAgent ?? 'Cardshot-Webhooks/1';
  return {
    async post(url, body, { headers, timeoutMs, maxBytes, signal }) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const abort = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        abort.abort(new Error('deadline'));
      }, timeoutMs);
      const forward = () => abort.abort(signal?.reason);
      signal?.addEventListener('abort', forward, { once: true });
      let client: ReturnType<typeof pinnedClient> | undefined;
      try {
        const target = await raceAbort(opts.guard.check(url), abort.signal);
        client = pinnedClient(target);
        const res = await client.request({
          method: 'POST',
          path: `${target.url.pathname}${target.url.search}`,
          headers: {
            ...headers,
            'user-agent': userAgent,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            'accept-encoding': 'identity',
          },
          body,
          signal: abort.signal,
        });
        const read = await readHead(res.body, maxBytes);
        return { ok: true, status: res.statusCode, headers: res.headers, body: read, durationMs: elapsed() };
      } catch (err) {
        if (timedOut) {
          return {
            ok: false,
            failure: 'timeout',
            detail: `no answer within ${timeoutMs} ms`,
            durationMs: elapsed(),
          };
        }
        if (signal?.aborted) throw signal.reason;
        if (err instanceof UrlRefusedError) {
          return { ok: false, failure: 'refused', detail: err.detail, durationMs: elapsed() };
        }
        const e = err as { code?: string; message?: string };
        return {
          ok: false,
          failure: 'network',
          detail: `${e.code ?? 'error'}: ${e.message ?? String(err)}`,
          durationMs: elapsed(),
        };
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', forward);
        await client?.destroy().catch(() => {});
      }
    },
  };
}

type Body = AsyncIterable<unknown> & { destroy(): void; on(event: 'error', f: () => void): unknown };

/**
 * The first `maxBytes` of a body. The rest is not read: a receiver that streams without end
 * costs one chunk past the cap and the time-out, never memory.
 */
async function readHead(body: Body, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const data of body) {
    const chunk = data as Buffer;
    chunks.push(chunk);
    total += chunk.length;
    if (total >= maxBytes) break;
  }
  body.on('error', () => {});
  body.destroy();
  return Buffer.concat(chunks, total).subarray(0, maxBytes);
}
