/**
 * Why an upload failed, as the storage said it: its error code (NoSuchBucket,
 * InvalidAccessKeyId, SignatureDoesNotMatch, …), or ours for what never reached an answer
 * (Timeout, a refused endpoint, a dropped connection). The message is safe to show the account:
 * it never holds the secret, and a refused endpoint is not explained (which internal names
 * resolve is not the caller's business; the log has the detail).
 */
import { UrlRefusedError } from '../net/url-guard.js';

/** An upload's failure: `code` is the storage's error code or one of ours. */
export class DeliveryError extends Error {
  readonly code: string;
  /** Worth another attempt (5xx, 429, a dropped connection, a time-out); a 4xx will repeat. */
  readonly retryable: boolean;
  /** For the log only. */
  readonly detail: string | undefined;

  constructor(code: string, message: string, retryable: boolean, detail?: string) {
    super(`${code}: ${message}`);
    this.name = 'DeliveryError';
    this.code = code;
    this.retryable = retryable;
    this.detail = detail;
  }
}

/** Codes a storage answers for a passing condition (with 5xx or 429 they are retried too). */
const TRANSIENT = new Set([
  'SlowDown',
  'RequestTimeout',
  'InternalError',
  'ServiceUnavailable',
  'Throttling',
]);
const NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** Longest storage message shown (their messages are one sentence; a proxy's HTML page is not). */
const MAX_MESSAGE = 200;

/** The failure of one attempt, from what the SDK threw; `secret` is scrubbed from any message. */
export function classify(
  err: unknown,
  opts: { timedOut: boolean; timeoutMs: number; secret?: string },
): DeliveryError {
  if (err instanceof DeliveryError) return err;
  if (opts.timedOut) {
    return new DeliveryError(
      'Timeout',
      `the storage did not finish the upload within ${opts.timeoutMs} ms`,
      true,
    );
  }
  const refused = findRefusal(err);
  if (refused) {
    return new DeliveryError(
      'EndpointRefused',
      'the endpoint is not a public address (set CARDSHOT_STORAGE_ALLOW_PRIVATE_HOSTS to admit a private one)',
      false,
      refused.detail,
    );
  }
  const e = err as {
    name?: string;
    code?: string;
    message?: string;
    $metadata?: { httpStatusCode?: number };
    $fault?: string;
  };
  const status = e.$metadata?.httpStatusCode;
  const clean = scrub(String(e.message ?? err), opts.secret);
  if (status !== undefined && e.name) {
    // The SDK names an exception after the code in the storage's XML answer.
    const code =
      e.name === 'Error' || e.name === 'S3ServiceException' || e.name === 'Unknown'
        ? `Http${status}`
        : e.name;
    const retryable = status >= 500 || status === 429 || TRANSIENT.has(code);
    return new DeliveryError(code, clean || `HTTP ${status}`, retryable);
  }
  const net = e.code ?? (NETWORK.has(String(e.name)) ? e.name : undefined);
  if (net && NETWORK.has(net)) {
    return new DeliveryError(net, `could not reach the storage (${clean})`, true);
  }
  if (e.name === 'TimeoutError' || e.code === 'ECONNABORTED') {
    return new DeliveryError('Timeout', `the storage did not answer in time (${clean})`, true);
  }
  return new DeliveryError(
    e.name && e.name !== 'Error' ? e.name : 'UploadFailed',
    clean || 'unknown error',
    true,
  );
}

function findRefusal(err: unknown): UrlRefusedError | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof UrlRefusedError) return e;
  }
  return undefined;
}

function scrub(message: string, secret: string | undefined): string {
  let text = message.replace(/\s+/g, ' ').trim();
  if (secret) text = text.split(secret).join('[redacted]');
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE - 1)}…` : text;
}
