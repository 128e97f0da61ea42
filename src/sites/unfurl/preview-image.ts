/**
 * The dashboard's Link preview draws each network's card with the page's own image, which
 * lives on another origin the dashboard's CSP does not load from. This fetches it through the
 * URL guard for the signed-in account instead: at most 5 MB, only the raster types the
 * networks draw (sniffed from the bytes, never taken from the header), at most two at once
 * per account (429 past that), so the route is no open proxy and no account's downloads crowd
 * out another's.
 */
import { AppError } from '../../errors.js';
import type { UrlGuard } from '../../net/url-guard.js';
import { probeImage } from '../../render/image/dimensions.js';
import { guardedGet } from '../head/get.js';

const MAX_BYTES = 5 * 1024 * 1024;
const PER_ACCOUNT = 2;
const TYPES = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' } as const;

/** Fetches preview images for accounts. */
export interface PreviewImages {
  /** The image's bytes and type; 422 when it is not one the networks draw, 429 past the account's share. */
  fetch(url: string, accountId: string, signal?: AbortSignal): Promise<{ body: Buffer; contentType: string }>;
}

/** Creates the fetcher over the guard. */
export function createPreviewImages(opts: {
  guard: UrlGuard;
  timeoutMs: number;
  ca?: string;
}): PreviewImages {
  const running = new Map<string, number>();
  return {
    async fetch(url, accountId, signal) {
      const n = running.get(accountId) ?? 0;
      if (n >= PER_ACCOUNT) {
        throw new AppError(
          'rate_limited',
          'Too many preview images loading for your account; retry shortly',
          {
            retryAfter: 1,
          },
        );
      }
      running.set(accountId, n + 1);
      try {
        const got = await guardedGet(opts.guard, url, {
          userAgent: 'Mozilla/5.0 (compatible; Cardshot-Unfurl/1.0)',
          accept: 'image/webp,image/png,image/jpeg,image/gif;q=0.9',
          timeoutMs: opts.timeoutMs,
          maxBytes: MAX_BYTES,
          maxRedirects: 5,
          ...(opts.ca ? { ca: opts.ca } : {}),
          ...(signal ? { signal } : {}),
        }).catch((err: unknown) => {
          throw new AppError('unprocessable', 'The image could not be fetched', { detail: String(err) });
        });
        const type = probeImage(got.body).type;
        const contentType = type && type in TYPES ? TYPES[type as keyof typeof TYPES] : null;
        if (got.status !== 200 || got.truncated || !contentType) {
          throw new AppError('unprocessable', 'The image is not one the networks draw', {
            detail: `status ${got.status}, type ${type}, truncated ${got.truncated}`,
          });
        }
        return { body: got.body, contentType };
      } finally {
        const left = (running.get(accountId) ?? 1) - 1;
        if (left <= 0) running.delete(accountId);
        else running.set(accountId, left);
      }
    },
  };
}
