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
  const all: Array<readonly [string, string]> = [
    ...params.filter(([n]) => n !== 'kid' && n !== 'exp' && n !== 'sig'),
    ['kid', signing.keyId],
    ['exp', String(Math.floor(signing.expiresAt))],
  ];
  const sig = await hmacBase64Url(signing.secret, canonicalRequest('GET', path, all));
  const query = [...all, ['sig', sig] as const].map(([n, v]) => `${encodeRfc3986(n)}=${encodeRfc3986(v)}`);
  return `${origin}${path}?${query.join('&')}`;
}
