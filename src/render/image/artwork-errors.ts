/** What a failed imageUrl download tells the user: one message per way it can fail. */
import { AppError } from '../../errors.js';
import { FetchError } from '../../net/fetch.js';
import { formatMegabytes, formatSeconds } from './artwork-format.js';

/** The 503 a download gets when the node holds too many (or too many bytes) already. */
export function imageServerBusy(retryAfter: number, detail: string, cause?: unknown): AppError {
  return new AppError(
    'unavailable',
    'Too many imageUrl downloads in progress on this server; retry shortly',
    {
      retryAfter,
      detail,
      cause,
    },
  );
}

/** The AppError for a FetchError (other errors pass through); `failed` hears the reason. */
export function downloadFailure(
  err: unknown,
  ctx: {
    limit: number;
    timeoutMs: number;
    maxRedirects: number;
    failed: (reason: string) => void;
    serverBusy: (detail: string, cause?: unknown) => AppError;
  },
): unknown {
  if (!(err instanceof FetchError)) return err;
  ctx.failed(err.kind);
  const fail = (message: string) =>
    new AppError('unprocessable', message, { detail: err.detail, cause: err });
  switch (err.kind) {
    case 'refused':
      // Generic on purpose: which rule matched would help someone map our network.
      return fail('imageUrl points to an address that is not allowed');
    case 'timeout':
      return fail(`imageUrl timed out after ${formatSeconds(ctx.timeoutMs)}`);
    case 'too_large':
      return fail(`imageUrl is larger than ${formatMegabytes(ctx.limit)}`);
    case 'http_status':
      return fail(`imageUrl answered HTTP ${err.status}`);
    case 'too_many_redirects':
      return fail(`imageUrl redirected more than ${ctx.maxRedirects} times`);
    case 'network':
      return fail('imageUrl could not be reached');
    case 'over_budget':
      return ctx.serverBusy(`bytes in flight: ${err.detail}`, err);
  }
}

/** `p`, or the signal's reason as soon as it aborts. */
export function raceSignal<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
