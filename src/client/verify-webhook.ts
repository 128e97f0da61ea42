/**
 * Checks a webhook Cardshot sent, as Standard Webhooks (https://www.standardwebhooks.com) says:
 * the HMAC-SHA-256 of `<webhook-id>.<webhook-timestamp>.<body>` under the secret's key bytes,
 * one of the space-separated `v1,<base64>` signatures, and a timestamp near now (replays of an
 * old message fail). WebCrypto only, like the rest of the client; any Standard Webhooks library
 * (the `standardwebhooks` npm package, svix) checks the same messages the same way.
 */
import { CardshotError } from './errors.js';
import type { WebhookEventType } from './webhooks.js';

/** A webhook's body. `data` holds ids, counts and signed links (never image bytes). */
export interface WebhookEvent {
  type: WebhookEventType | 'webhook.test';
  /** When the event happened (ISO 8601). */
  timestamp: string;
  data: Record<string, unknown>;
}

/** The request's headers: a fetch `Headers`, or Node's `req.headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** How far the timestamp may be from now, in seconds; default 300 (as the libraries). */
  toleranceSeconds?: number;
  /** Now, in unix ms (tests). */
  now?: number;
}

const invalid = (why: string) =>
  new CardshotError(`Webhook not verified: ${why}`, { status: 0, code: 'invalid_webhook' });

/**
 * The verified event, or a CardshotError with code `invalid_webhook` saying why not. Pass the
 * body exactly as it arrived (the raw text or bytes: a re-serialised JSON object does not match).
 */
export async function verifyWebhook(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  opts: VerifyOptions = {},
): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw invalid('webhook-id, webhook-timestamp or webhook-signature is missing');
  if (!/^\d{1,12}$/.test(timestamp)) throw invalid('webhook-timestamp is not a number of seconds');
  const skew = Math.abs((opts.now ?? Date.now()) / 1000 - Number(timestamp));
  if (skew > (opts.toleranceSeconds ?? 300))
    throw invalid('the timestamp is too far from now (a replay, or a wrong clock)');

  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const expected = await hmac(keyBytes(secret), `${id}.${timestamp}.${text}`);
  const matches = signatures
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .some((s) => sameBytes(decodeBase64(s.slice(3)), expected));
  if (!matches) throw invalid('no signature matches this secret');
  try {
    return JSON.parse(text) as WebhookEvent;
  } catch {
    throw invalid('the body is not JSON');
  }
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const found = record[name] ?? Object.entries(record).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(found) ? found[0] : found;
}

function keyBytes(secret: string): Uint8Array<ArrayBuffer> {
  const raw = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  const bytes = decodeBase64(raw);
  if (bytes.length === 0)
    throw new TypeError('verifyWebhook: the secret must be the whsec_… value Cardshot showed');
  return bytes;
}

async function hmac(key: Uint8Array<ArrayBuffer>, message: string): Promise<Uint8Array> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new TypeError('verifyWebhook needs WebCrypto (crypto.subtle)');
  const k = await subtle.importKey(
    'raw',
    key as Uint8Array<ArrayBuffer>,
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return new Uint8Array(await subtle.sign('HMAC', k, new TextEncoder().encode(message)));
}

function decodeBase64(s: string): Uint8Array<ArrayBuffer> {
  try {
    return Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
  } catch {
    return new Uint8Array(0);
  }
}

/** Compares every byte whatever differs first, so the time taken tells nothing of the signature. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
