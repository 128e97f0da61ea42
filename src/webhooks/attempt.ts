import type { GuardedPoster, PostResult } from '../net/post.js';
import { retryAfterMs } from './schedule.js';
import { signedHeaders } from './signing.js';

/** The answer is read to this many bytes at most (a receiver cannot make us hold more). */
export const READ_BYTES = 4096;
/** The delivery log keeps this much of it. */
export const LOGGED_BYTES = 1024;

/** What one attempt came to. */
export interface AttemptOutcome {
  /** `gone`: the receiver answered 410 and its endpoint is disabled. */
  result: 'succeeded' | 'failed' | 'gone';
  /** For metrics: what happened, from a closed set. */
  outcome: 'delivered' | 'http_status' | 'redirect' | 'gone' | 'timeout' | 'refused' | 'network';
  status: number | null;
  durationMs: number;
  /** The first 1 KB of the answer. */
  response: string;
  /** Why it failed, in words the account may read (never an internal address); null on success. */
  error: string | null;
  /** For the log only: the low-level reason (may name addresses). */
  detail?: string;
  /** The receiver's Retry-After, in ms from the attempt. */
  retryAfterMs?: number;
}

/**
 * Makes one signed POST of `body` to `url`. Only a 2xx succeeds; a 3xx is a failure and is not
 * followed (a redirect could point at an address the guard refuses, and the receiver should
 * have been given its final URL); 410 means "stop sending".
 */
export async function attemptDelivery(
  poster: GuardedPoster,
  a: {
    url: string;
    id: string;
    body: string;
    secrets: readonly string[];
    now: number;
    timeoutMs: number;
    /** Aborts the attempt (the node is stopping); it then rejects with the signal's reason. */
    signal?: AbortSignal;
  },
): Promise<AttemptOutcome> {
  const headers = signedHeaders(a.secrets, a.id, Math.floor(a.now / 1000), a.body);
  const res = await poster.post(a.url, a.body, {
    headers,
    timeoutMs: a.timeoutMs,
    maxBytes: READ_BYTES,
    ...(a.signal ? { signal: a.signal } : {}),
  });
  return classify(res, a.now, a.timeoutMs);
}

function classify(res: PostResult, now: number, timeoutMs: number): AttemptOutcome {
  if (!res.ok) {
    const error =
      res.failure === 'timeout'
        ? `No answer within ${formatSeconds(timeoutMs)}`
        : res.failure === 'refused'
          ? 'The URL is not allowed: webhooks go to public addresses only'
          : 'The connection failed or was closed before an answer came';
    return {
      result: 'failed',
      outcome: res.failure,
      status: null,
      durationMs: res.durationMs,
      response: '',
      error,
      detail: res.detail,
    };
  }
  const response = firstBytes(res.body, LOGGED_BYTES);
  const base = { status: res.status, durationMs: res.durationMs, response };
  if (res.status >= 200 && res.status <= 299) {
    return { ...base, result: 'succeeded', outcome: 'delivered', error: null };
  }
  if (res.status === 410) {
    return {
      ...base,
      result: 'gone',
      outcome: 'gone',
      error: 'HTTP 410 Gone: the endpoint is disabled, nothing more is sent to it',
    };
  }
  const wait = retryAfterMs(res.headers['retry-after'], now);
  const redirect = res.status >= 300 && res.status <= 399;
  const error = redirect
    ? `HTTP ${res.status}: redirects are not followed; give the endpoint its final URL`
    : `HTTP ${res.status}: only a 2xx answer counts as delivered`;
  return {
    ...base,
    result: 'failed',
    outcome: redirect ? 'redirect' : 'http_status',
    error,
    ...(wait !== undefined ? { retryAfterMs: wait } : {}),
  };
}

/** The first `n` bytes as text, cut at a character boundary. */
function firstBytes(body: Buffer, n: number): string {
  const text = body.subarray(0, n).toString('utf8');
  // A multi-byte character cut in two decodes as U+FFFD at the end: drop it.
  return body.length > n ? text.replace(/\uFFFD$/, '') : text;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
