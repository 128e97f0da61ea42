/**
 * A look at the image a page names, through the URL guard: its status, type and pixel size
 * from the first bytes (render/image/dimensions.ts) and its size in bytes from Content-Length,
 * else by counting the body up to just past the largest limit any network has. Only the first
 * `KEEP` bytes are kept; the rest is counted and dropped, so a 100 MB image costs a bounded
 * download and no memory.
 */

import type { UrlGuard } from '../../net/url-guard.js';
import { probeImage } from '../../render/image/dimensions.js';
import { guardedGet } from '../head/get.js';

/** What the image turned out to be. */
export interface ImageLook {
  url: string;
  /** Null when no answer came (refused, time-out, network). */
  status: number | null;
  /** Why no usable answer came: `refused`, `timeout`, `network`, `http_status`. */
  failure: string | null;
  contentType: string | null;
  type: 'png' | 'jpeg' | 'webp' | 'gif' | 'avif' | 'svg' | null;
  width: number | null;
  height: number | null;
  /** Bytes (declared, else counted up to `countBytes` + 1); null when unknown. */
  bytes: number | null;
}

/** Bytes kept to find the size: a JPEG's frame header may follow large EXIF and ICC segments. */
const KEEP = 512 * 1024;

/** Looks at the image at `url`; never throws for the image's own failures. */
export async function lookAtImage(
  guard: UrlGuard,
  url: string,
  opts: { timeoutMs: number; userAgent: string; countBytes: number; ca?: string; signal?: AbortSignal },
): Promise<ImageLook> {
  const none = { contentType: null, type: null, width: null, height: null, bytes: null };
  try {
    const got = await guardedGet(guard, url, {
      userAgent: opts.userAgent,
      accept: 'image/avif,image/webp,image/png,image/jpeg,image/gif,*/*;q=0.5',
      timeoutMs: opts.timeoutMs,
      maxBytes: KEEP,
      countBytes: opts.countBytes + 1,
      maxRedirects: 5,
      ...(opts.ca ? { ca: opts.ca } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const contentType = got.headers['content-type'] ?? null;
    if (got.status < 200 || got.status > 299) {
      return { url, status: got.status, failure: 'http_status', ...none, contentType };
    }
    const probe = probeImage(got.body);
    return {
      url,
      status: got.status,
      failure: null,
      contentType,
      ...probe,
      bytes: got.declaredBytes ?? got.seenBytes,
    };
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    return { url, status: null, failure: (err as { kind?: string }).kind ?? 'network', ...none };
  }
}
