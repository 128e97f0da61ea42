/**
 * Errors the client throws. One class, so `catch (e) { if (e instanceof CardshotError) … }`
 * covers everything; `code` tells the cases apart without comparing messages.
 */
export type CardshotErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unprocessable'
  | 'rate_limited'
  | 'internal'
  | 'bad_gateway'
  | 'unavailable'
  | 'gateway_timeout'
  | 'http_error'
  /** No answer within `timeoutMs`. */
  | 'timeout'
  /** The request never got an HTTP answer (DNS, refused connection, TLS, …). */
  | 'network'
  /** The caller's AbortSignal fired. */
  | 'aborted';

const CODES: Record<number, CardshotErrorCode> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable',
  429: 'rate_limited',
  500: 'internal',
  502: 'bad_gateway',
  503: 'unavailable',
  504: 'gateway_timeout',
};

/** A refused or failed request: the server's `{ "error": … }` message, its status and request id. */
export class CardshotError extends Error {
  /** HTTP status; 0 when no answer arrived (timeout, network, aborted). */
  readonly status: number;
  readonly code: CardshotErrorCode;
  /** The server's X-Request-Id: quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** Seconds the server asked to wait (429 and 503), from Retry-After. */
  readonly retryAfter: number | undefined;

  constructor(
    message: string,
    opts: {
      status: number;
      code?: CardshotErrorCode;
      requestId?: string;
      retryAfter?: number;
      cause?: unknown;
    },
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'CardshotError';
    this.status = opts.status;
    this.code = opts.code ?? CODES[opts.status] ?? 'http_error';
    this.requestId = opts.requestId;
    this.retryAfter = opts.retryAfter;
  }
}

/** Builds the error for a non-2xx answer, reading `{ "error": … }` when the body is that JSON. */
export async function errorFromResponse(res: Response): Promise<CardshotError> {
  let message = `HTTP ${res.status}`;
  try {
    const body = (await res.json()) as { error?: unknown };
    if (typeof body?.error === 'string') message = body.error;
  } catch {
    // Not our JSON (a proxy's HTML page, an empty body): the status says enough.
  }
  const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
  return new CardshotError(message, {
    status: res.status,
    ...(res.headers.get('x-request-id') ? { requestId: res.headers.get('x-request-id')! } : {}),
    ...(retryAfter !== undefined ? { retryAfter } : {}),
  });
}

/** Retry-After as seconds: a number of seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
