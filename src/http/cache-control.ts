import type { AuthContext } from '../auth/authenticate.js';

/**
 * The Cache-Control of a PNG answer. An answer to a signed URL (previews are signed for minutes)
 * must not be cached past the signature's `exp`: browsers and CDNs would keep serving it after
 * the URL stopped working (issue 20 §3). So its freshness ends at the shorter of `maxAge` and
 * `exp`, and it is never `immutable` (which tells a browser not to revalidate even on reload).
 * `age` is the Age header sent with it: caches count it against max-age. `revalidate` adds
 * `must-revalidate`: a stale copy is checked with the origin (ETag, 304) before it is served again.
 */
export function pngCacheControl(
  auth: AuthContext | null,
  maxAge: number,
  opts: { immutable?: boolean; revalidate?: boolean; age?: number; now?: number } = {},
): string {
  const exp = auth?.via === 'signature' ? auth.signatureExpiresAt : undefined;
  const tail = opts.revalidate ? ', must-revalidate' : '';
  if (exp === undefined) {
    return `public, max-age=${maxAge}${opts.immutable ? ', immutable' : `, s-maxage=${maxAge}${tail}`}`;
  }
  const left = Math.max(0, Math.floor(exp - (opts.now ?? Date.now()) / 1000));
  const fresh = Math.min(maxAge, (opts.age ?? 0) + left);
  return `public, max-age=${fresh}, s-maxage=${fresh}${tail}`;
}

/** Cards are content-addressed by their ETag, so a year and `immutable` are safe (spec §4.1, §8). */
export const TEMPLATE_MAX_AGE = 31_536_000;

/**
 * A card drawn with the account's brand theme is not: its URL stays the same when the theme
 * changes, so `immutable` for a year kept the old colours in browsers and CDNs (issue 26 §3).
 * It is fresh for five minutes, then revalidated with its ETag (a 304 while the theme holds).
 */
export const THEMED_MAX_AGE = 300;

/** The Cache-Control of a card: a year and immutable, or revalidated after 5 minutes when themed. */
export function cardCacheControl(auth: AuthContext | null, themed: boolean): string {
  return themed
    ? pngCacheControl(auth, THEMED_MAX_AGE, { revalidate: true })
    : pngCacheControl(auth, TEMPLATE_MAX_AGE, { immutable: true });
}

/** A card's Cache-Control for a caller without a signed URL (what the API documents). */
export const TEMPLATE_CACHE_CONTROL = pngCacheControl(null, TEMPLATE_MAX_AGE, { immutable: true });
