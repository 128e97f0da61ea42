import { CardshotError, errorFromResponse } from './errors.js';

/** What one request needs to know of the client's options. */
export interface TransportOptions {
  baseUrl: string;
  apiKey?: string | undefined;
  timeoutMs?: number | undefined;
  retries?: number | undefined;
  retryDelayMs?: number | undefined;
  maxRetryDelayMs?: number | undefined;
  fetchImpl: typeof fetch;
}

/** What one call may add: a conditional ETag, a signal, its own headers. */
export interface CallInit {
  ifNoneMatch?: string | undefined;
  signal?: AbortSignal | undefined;
  /**
   * Hand back the answer as it streams, without reading its body first: the time-out then
   * covers the wait for the headers only, and the caller reads (or cancels) the body.
   */
  stream?: boolean | undefined;
}

/** One request with time-out, retries on 429/503, and errors turned into CardshotError. */
export async function send(
  opts: TransportOptions,
  path: string,
  init: RequestInit,
  call: CallInit,
): Promise<Response> {
  const retries = Math.max(0, opts.retries ?? 0);
  const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
  if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
  if (call.ifNoneMatch) headers['if-none-match'] = call.ifNoneMatch;
  for (let attempt = 0; ; attempt++) {
    const res = await attemptOnce(opts, `${opts.baseUrl}${path}`, { ...init, headers }, call);
    if (res.ok || res.status === 304) return res;
    const err = await errorFromResponse(res);
    const wait = retryDelay(opts, err, attempt);
    if (attempt >= retries || wait === undefined) throw err;
    await sleep(wait, call.signal);
  }
}

function retryDelay(opts: TransportOptions, err: CardshotError, attempt: number): number | undefined {
  if (err.status !== 429 && err.status !== 503) return undefined;
  const max = opts.maxRetryDelayMs ?? 10_000;
  const backoff = (opts.retryDelayMs ?? 500) * 2 ** attempt;
  const wait = err.retryAfter !== undefined ? err.retryAfter * 1000 : backoff;
  return wait > max ? undefined : wait;
}

const aborted = (cause?: unknown) =>
  new CardshotError('The request was aborted', {
    status: 0,
    code: 'aborted',
    ...(cause === undefined ? {} : { cause }),
  });

async function attemptOnce(
  opts: TransportOptions,
  url: string,
  init: RequestInit,
  call: CallInit,
): Promise<Response> {
  const { signal } = call;
  if (signal?.aborted) throw aborted();
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  // Forwarded by hand rather than AbortSignal.any, which older runtimes lack.
  const forward = () => controller.abort();
  signal?.addEventListener('abort', forward, { once: true });
  let streaming = false;
  try {
    const res = await opts.fetchImpl(url, { ...init, signal: controller.signal });
    if (call.stream && res.ok) {
      // The caller's signal keeps aborting the body as it streams; only the time-out ends here.
      streaming = true;
      clearTimeout(timer);
      return res;
    }
    // Reading the body is part of the attempt too: a stalled body is a time-out, not a hang.
    const body = await res.arrayBuffer();
    return new Response(res.status === 304 || res.status === 204 ? null : body, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  } catch (err) {
    if (signal?.aborted) throw aborted(err);
    if (timedOut) {
      throw new CardshotError(`No answer from Cardshot within ${timeoutMs} ms`, {
        status: 0,
        code: 'timeout',
        cause: err,
      });
    }
    throw new CardshotError(`Could not reach Cardshot at ${opts.baseUrl}: ${(err as Error).message}`, {
      status: 0,
      code: 'network',
      cause: err,
    });
  } finally {
    clearTimeout(timer);
    if (!streaming) signal?.removeEventListener('abort', forward);
  }
}

/**
 * A JSON call: the body (when given) sent as JSON, the answer parsed; 204 gives undefined.
 * Every refusal is the CardshotError `send` makes of it.
 */
export async function sendJson<T>(
  opts: TransportOptions,
  method: string,
  path: string,
  body: unknown,
  call: CallInit & { headers?: Record<string, string> | undefined } = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
  const init: RequestInit = { method, headers };
  if (body !== undefined) {
    headers['content-type'] ??= 'application/json';
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const res = await send(opts, path, init, call);
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new CardshotError(`Cardshot answered ${method} ${path} with something other than JSON`, {
      status: res.status,
      code: 'http_error',
      cause: err,
    });
  }
}

/** Resolves after `ms`, or rejects with the aborted CardshotError when `signal` fires first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(aborted());
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
