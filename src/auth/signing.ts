import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed URLs, for `<meta property="og:image">` where no header can be sent and no key may be
 * shown: `kid` (key id), `exp` (unix seconds) and `sig` = base64url(HMAC-SHA-256(signing secret,
 * canonical request)). The canonical request is three lines joined by `\n`: the method (`GET`;
 * HEAD is signed as GET), the path, and every query parameter but `sig`, decoded, sorted by name
 * then value (UTF-16 code unit order), each written `name=value` with RFC 3986 percent-encoding,
 * joined by `&`.
 */
export const SIGNATURE_PARAMS = ['kid', 'exp', 'sig'] as const;

// One canonical form for the server and the client (which must run without Node's crypto in
// browsers and edge runtimes): the client's dependency-free definition is the only one.
import {
  canonicalRequest,
  carriesFresh,
  FRESH_SIGNED_MAX_SECONDS,
  FRESH_SIGNED_REFUSED,
} from '../client/signing.js';

export {
  canonicalRequest,
  carriesFresh,
  encodeRfc3986,
  FRESH_SIGNED_MAX_SECONDS,
  FRESH_SIGNED_REFUSED,
} from '../client/signing.js';

/** base64url HMAC-SHA-256 of `canonical` under `signingSecret`. */
export function signature(signingSecret: string, canonical: string): string {
  return createHmac('sha256', signingSecret).update(canonical).digest('base64url');
}

/** Constant-time comparison of a presented signature with the expected one. */
export function signatureMatches(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Signs `url` (absolute, or a path with a query) for GET: drops any old kid/exp/sig, adds
 * `kid` and `exp`, then `sig`. Returns the URL in the form it was given. Throws a RangeError
 * (FRESH_SIGNED_REFUSED) for a URL with `fresh=true` that would live over 30 minutes.
 */
export function signUrl(
  url: string,
  opts: { keyId: string; signingSecret: string; expiresAt: number },
): string {
  const absolute = /^[a-z][a-z0-9+.-]*:\/\//i.test(url);
  const u = new URL(url, 'http://relative.invalid');
  for (const p of SIGNATURE_PARAMS) u.searchParams.delete(p);
  if (
    carriesFresh([...u.searchParams.entries()]) &&
    opts.expiresAt - Date.now() / 1000 > FRESH_SIGNED_MAX_SECONDS
  ) {
    throw new RangeError(FRESH_SIGNED_REFUSED);
  }
  u.searchParams.append('kid', opts.keyId);
  u.searchParams.append('exp', String(Math.floor(opts.expiresAt)));
  const canonical = canonicalRequest('GET', u.pathname, [...u.searchParams.entries()]);
  u.searchParams.append('sig', signature(opts.signingSecret, canonical));
  // URLSearchParams writes spaces as '+'; %20 survives every HTML and CDN rewrite.
  const query = u.searchParams.toString().replace(/\+/g, '%20');
  return absolute ? `${u.origin}${u.pathname}?${query}` : `${u.pathname}?${query}`;
}
