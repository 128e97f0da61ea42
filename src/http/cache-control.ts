import type { AuthContext } from '../auth/authenticate.js';

/**
 * The Cache-Control of a PNG answer. An answer to a signed URL (previews are signed for minutes)
 * must not be cached past the signature's `exp`: browsers and CDNs would keep serving it after
 * the URL stopped working (issue 20 §3). So its freshness ends at the shorter of `maxAge` and
 * `exp`, and it is never `immutable` (which tells a browser not to revalidate even on reload).
 * `age` is the Age header sent with it: caches count it against max-age.
 */
export function pngCacheControl(
  auth: AuthContext | null,
  maxAge: number,
  opts: { immutable?: boolean; age?: number; now?: number } = {},
): string {
  const exp = auth?.via === 'signature' ? auth.signatureExpiresAt : undefined;
  if (exp === undefined) {
    return `public, max-age=${maxAge}${opts.immutable ? ', immutable' : `, s-maxage=${maxAge}`}`;
  }
  const left = Math.max(0, Math.floor(exp - (opts.now ?? Date.now()) / 1000));
  const fresh = Math.min(maxAge, (opts.age ?? 0) + left);
  return `public, max-age=${fresh}, s-maxage=${fresh}`;
}

/** Cards are content-addressed by their ETag, so a year and `immutable` are safe (spec §4.1, §8). */
export const TEMPLATE_MAX_AGE = 31_536_000;

/** A card's Cache-Control for a caller without a signed URL (what the API documents). */
export const TEMPLATE_CACHE_CONTROL = pngCacheControl(null, TEMPLATE_MAX_AGE, { immutable: true });
