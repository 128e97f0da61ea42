import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_` plus
 * base64 key bytes; each signature is `v1,` plus the base64 HMAC-SHA-256, under those bytes, of
 * `<webhook-id>.<webhook-timestamp>.<body>`. Several signatures go space-separated in one
 * header, which is how a rotated secret and its successor both sign during the grace period.
 */

const PREFIX = 'whsec_';

/** A new secret: 32 random bytes (the spec asks for 24 to 64). */
export function newWebhookSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The key bytes of a `whsec_…` secret. */
function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/** `v1,<base64 HMAC>` of one message under one secret. */
export function signature(secret: string, id: string, timestampS: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${id}.${timestampS}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three headers of one attempt, signed by every secret given (current first). */
export function signedHeaders(
  secrets: readonly string[],
  id: string,
  timestampS: number,
  body: string,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampS),
    'webhook-signature': secrets.map((s) => signature(s, id, timestampS, body)).join(' '),
  };
}
