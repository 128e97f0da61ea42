/**
 * A screenshot as the cache holds it, and the freshness rules the `ttl` and `fresh` options add:
 * what is stored for a capture (its ETag, lifetime and the facts its headers need), and whether
 * a stored entry may answer a given request.
 */
import { createHash } from 'node:crypto';
import { type CacheEntry, lifetimeSeconds } from '../../../cache/cache.js';
import type { Capture } from '../engine/page/capture.js';
import { imageIdentity, type ShotOptions } from '../options.js';

/** The cache lifetimes the operator configured (seconds). */
export interface Lifetimes {
  cacheTtlSeconds: number;
  errorTtlSeconds: number;
}

/**
 * The cache entry for `capture`, and its max-age. The ETag is the SHA-256 of the image, and of
 * the options that shaped it when there are any (so a request without options keeps the ETag it
 * always had). A 2xx page lives `ttl` when the request gave one, else the configured TTL; a
 * 4xx/5xx page (or a 3xx with nowhere to go, as likely to be fixed soon) only the error TTL.
 * Caching turned off by the operator (TTL 0) stays off whatever `ttl` says.
 */
export function entryFor(
  capture: Omit<Capture, 'timings'>,
  options: ShotOptions | undefined,
  lifetimes: Lifetimes,
  now = Date.now(),
): { entry: CacheEntry; maxAge: number } {
  const hash = createHash('sha256');
  const identity = imageIdentity(options);
  if (identity) hash.update(`${JSON.stringify(identity)}\n`);
  const etag = hash.update(capture.image).digest('hex').slice(0, 40);
  const ok = capture.targetStatus >= 200 && capture.targetStatus < 300;
  const maxAge = !ok
    ? lifetimes.errorTtlSeconds
    : lifetimes.cacheTtlSeconds === 0
      ? 0
      : (options?.ttl ?? lifetimes.cacheTtlSeconds);
  const meta: Record<string, string> = {
    targetStatus: String(capture.targetStatus),
    finalUrl: capture.finalUrl.slice(0, 2048),
  };
  if (capture.pageHeight !== undefined) meta.pageHeight = String(capture.pageHeight);
  if (capture.truncated) meta.truncated = 'true';
  return {
    entry: { body: capture.image, etag, storedAt: now, expiresAt: now + maxAge * 1000, meta },
    maxAge,
  };
}

/** The max-age a cached entry is served with: the request's `ttl` for a 2xx page, else its own. */
export function servedMaxAge(entry: CacheEntry, options: ShotOptions | undefined): number {
  const status = Number(entry.meta?.targetStatus ?? 200);
  const ok = status >= 200 && status < 300;
  return ok && options?.ttl !== undefined ? options.ttl : lifetimeSeconds(entry);
}

/**
 * Whether a stored entry may answer this request: never with `fresh` unless it was stored after
 * the request began (another request's capture it joined), and with `ttl` only while it is
 * younger than that.
 */
export function acceptable(
  entry: CacheEntry,
  options: ShotOptions | undefined,
  requestStarted: number,
  now = Date.now(),
): boolean {
  if (options?.fresh && entry.storedAt < requestStarted) return false;
  if (options?.ttl !== undefined && now - entry.storedAt >= servedMaxAge(entry, options) * 1000) return false;
  return true;
}

/** The facts of a stored capture its answer's headers carry. */
export function entryFacts(entry: CacheEntry): {
  targetStatus: number;
  pageHeight?: number;
  truncated?: true;
} {
  const pageHeight = entry.meta?.pageHeight;
  return {
    targetStatus: Number(entry.meta?.targetStatus ?? 200),
    ...(pageHeight !== undefined ? { pageHeight: Number(pageHeight) } : {}),
    ...(entry.meta?.truncated === 'true' ? { truncated: true as const } : {}),
  };
}
