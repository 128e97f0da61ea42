/**
 * The one error type the service throws on purpose. `http/errors.ts` maps each code to a
 * status; nothing else decides statuses. `message` goes to the client as `{ "error": message }`,
 * so it must be safe to show; `detail` is for the log only (security refusals keep the client
 * message generic and put the reason here).
 */
export type ErrorCode =
  | 'bad_request' // 400
  | 'unauthorized' // 401
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'method_not_allowed' // 405
  | 'request_timeout' // 408: the request did not arrive in time
  | 'conflict' // 409: the thing already exists (an account's email)
  | 'payload_too_large' // 413
  | 'unsupported_media_type' // 415
  | 'expectation_failed' // 417: an Expect header other than 100-continue
  | 'unprocessable' // 422: input is well formed but unusable (an imageUrl we cannot use)
  | 'rate_limited' // 429
  | 'header_too_large' // 431
  | 'client_closed' // 499: the client went away first (nobody reads it; logs and metrics do)
  | 'internal' // 500
  | 'bad_gateway' // 502
  | 'unavailable' // 503: queue full, dependency down
  | 'gateway_timeout'; // 504

export interface AppErrorOptions {
  /** Log-only explanation; never sent to the client. */
  detail?: string;
  /** Seconds, sent as `Retry-After` (429, 503). */
  retryAfter?: number;
  /** Extra response headers (for example `Allow` on 405). */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** An expected failure with a client-safe message. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly detail: string | undefined;
  readonly retryAfter: number | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.detail = options.detail;
    this.retryAfter = options.retryAfter;
    this.headers = options.headers;
  }
}

/** True when `err` is an AppError with one of the given codes (any code when none given). */
export function isAppError(err: unknown, ...codes: ErrorCode[]): err is AppError {
  return err instanceof AppError && (codes.length === 0 || codes.includes(err.code));
}

/**
 * The client hung up before its answer was ready: what a route aborts its work with. Nobody
 * reads the message; the status (499) keeps such requests apart in logs and metrics.
 */
export function clientClosed(): AppError {
  return new AppError('client_closed', 'The client closed the request before the answer was ready');
}
