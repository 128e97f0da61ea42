/**
 * Signed URLs in the client, with WebCrypto (Node 20, browsers, edge runtimes; no dependency).
 * The canonical form is exactly the server's (src/auth/signing.ts): method, path and the sorted,
 * RFC 3986-encoded query without `sig`, joined by newlines; a test checks both agree.
 */

/** Percent-encodes everything but RFC 3986 unreserved characters. */
export function encodeRfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The string that is signed, from decoded name/value pairs. */
export function canonicalRequest(
  method: string,
  path: string,
  params: ReadonlyArray<readonly [string, string]>,
): string {
  const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  const query = params
    .filter(([name]) => name !== 'sig')
    .map(([name, value]) => [name, value] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    .map(([name, value]) => `${encodeRfc3986(name)}=${encodeRfc3986(value)}`)
    .join('&');
  return `${m}\n${path}\n${query}`;
}

/** base64url (no padding) HMAC-SHA-256 of `message` under `secret`. */
export async function hmacBase64Url(secret: string, message: string): Promise<string> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle)
    throw new Error('Cardshot: signing needs WebCrypto (crypto.subtle), available in Node 20+ and browsers');
  const enc = new TextEncoder();
  const key = await subtle.importKey('raw', enc.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  const mac = new Uint8Array(await subtle.sign('HMAC', key, enc.encode(message)));
  let binary = '';
  for (const byte of mac) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * `origin + path` with `params`, `kid`, `exp` and `sig` in the query. Values are written with
 * %20 for spaces (never `+`), which every HTML attribute, CDN and crawler keeps as is.
 */
export async function signPath(
  origin: string,
  path: string,
  params: ReadonlyArray<readonly [string, string]>,
  signing: { keyId: string; secret: string; expiresAt: number },
): Promise<string> {
  if (carriesFresh(params) && signing.expiresAt - Date.now() / 1000 > FRESH_SIGNED_MAX_SECONDS) {
    throw new RangeError(`Cardshot: ${FRESH_SIGNED_REFUSED}`);
  }
  const all: Array<readonly [string, string]> = [
    ...params.filter(([n]) => n !== 'kid' && n !== 'exp' && n !== 'sig'),
    ['kid', signing.keyId],
    ['exp', String(Math.floor(signing.expiresAt))],
  ];
  const sig = await hmacBase64Url(signing.secret, canonicalRequest('GET', path, all));
  const query = [...all, ['sig', sig] as const].map(([n, v]) => `${encodeRfc3986(n)}=${encodeRfc3986(v)}`);
  return `${origin}${path}?${query.join('&')}`;
}

/**
 * The longest a signed URL that carries `fresh=true` may live. Every request to such a URL is a
 * new capture, paid by the key's owner, and a signed URL is public: one signed for a year let
 * anyone who saw the og:image tag spend captures at will (issue 26 §3). Half an hour covers a
 * preview (15 to 25 minutes) and no published tag.
 */
export const FRESH_SIGNED_MAX_SECONDS = 1800;

/** What the signing helpers and the server answer for a signed URL with `fresh` that lives longer. */
export const FRESH_SIGNED_REFUSED =
  'fresh cannot be in a signed URL that lives more than 30 minutes: every request to it would be a new capture; sign it without fresh, or for 30 minutes at most';

/** Whether `params` turn `fresh` on (the API's spellings: true or 1). */
export function carriesFresh(params: ReadonlyArray<readonly [string, string]>): boolean {
  return params.some(([name, value]) => name === 'fresh' && (value === 'true' || value === '1'));
}
