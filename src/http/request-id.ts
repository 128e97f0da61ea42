import { randomUUID } from 'node:crypto';
import { containsSecret } from './redact.js';

/**
 * What a caller's own request id may look like: short and plain, since it is echoed in a header
 * and written to every log line of the request.
 */
const INCOMING_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * A new request id, `req_` and 20 hex digits. randomUUID draws from a cached entropy pool: a
 * third of randomBytes' cost per request.
 */
export function newRequestId(): string {
  return `req_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
}

/**
 * The id of a request: the caller's `X-Request-Id` (a load balancer's, so one id follows the
 * request across hops) when it is short and plain, a new one otherwise. An id shaped like a
 * Cardshot key, signing secret or invite token is replaced too: the id is echoed and logged
 * verbatim, so keeping it would put a secret pasted into the wrong header into every log line.
 */
export function requestIdFor(incoming: string | string[] | undefined): string {
  return typeof incoming === 'string' && INCOMING_ID.test(incoming) && !containsSecret(incoming)
    ? incoming
    : newRequestId();
}
