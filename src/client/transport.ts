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

/** One request with time-out, retries on 429/503, and errors turned into CardshotError. */
export async function send(
  opts: TransportOptions,
  path: string,
  init: RequestInit,
  call: { ifNoneMatch?: string | undefined; signal?: AbortSignal | undefined },
): Promise<Response> {
  const retries = Math.max(0, opts.retries ?? 0);
  const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
  if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
  if (call.ifNoneMatch) headers['if-none-match'] = call.ifNoneMatch;
  for (let attempt = 0; ; attempt++) {
    const res = await attemptOnce(opts, `${opts.baseUrl}${path}`, { ...init, headers }, call.signal);
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
  signal: AbortSignal | undefined,
): Promise<Response> {
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
  try {
    const res = await opts.fetchImpl(url, { ...init, signal: controller.signal });
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
    signal?.removeEventListener('abort', forward);
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
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
