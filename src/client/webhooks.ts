/**
 * Verifying a Cardshot webhook in a receiver, with WebCrypto (Node 20+, browsers, edge
 * runtimes; no dependency). The same checks as the Standard Webhooks libraries: the signature
 * over `<webhook-id>.<webhook-timestamp>.<raw body>` under the `whsec_` secret's key bytes, any
 * one of the space-separated `v1,` signatures matching (two during a rotation), and a timestamp
 * within five minutes of now (a replayed request is refused).
 */

/** A verified event: `{"type", "timestamp", "data"}`. */
export interface WebhookEvent<D = Record<string, unknown>> {
  type: string;
  timestamp: string;
  data: D;
}

/** The signature, a header or the timestamp did not check out. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

const TOLERANCE_S = 5 * 60;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const v = key === undefined ? undefined : bag[key];
  return Array.isArray(v) ? v[0] : v;
}

function base64ToBytes(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function bytesToBase64(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** Compares without stopping at the first difference. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Checks a webhook request and returns its parsed event; throws WebhookVerificationError
 * otherwise. Pass the body exactly as received (a re-serialised object would not match).
 */
export async function verifyWebhook<D = Record<string, unknown>>(
  body: string | Uint8Array,
  headers: HeaderBag,
  secret: string,
  opts: { toleranceSeconds?: number; now?: number } = {},
): Promise<WebhookEvent<D>> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle)
    throw new Error(
      'Cardshot: verifyWebhook needs WebCrypto (crypto.subtle), available in Node 20+ and browsers',
    );
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature header');
  }
  const sentAt = Number(timestamp);
  const now = Math.floor((opts.now ?? Date.now()) / 1000);
  if (!/^\d+$/.test(timestamp) || Math.abs(now - sentAt) > (opts.toleranceSeconds ?? TOLERANCE_S)) {
    throw new WebhookVerificationError('The webhook-timestamp is not within 5 minutes of now (a replay?)');
  }
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const keyBytes = base64ToBytes(secret.startsWith('whsec_') ? secret.slice(6) : secret);
  const key = await subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${text}`));
  const expected = bytesToBase64(new Uint8Array(mac));
  const match = signatures.split(' ').some((s) => s.startsWith('v1,') && sameText(s.slice(3), expected));
  if (!match) throw new WebhookVerificationError('No signature matches this secret');
  return JSON.parse(text) as WebhookEvent<D>;
}
