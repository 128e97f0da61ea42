import type { Logger } from 'pino';
import type { CacheEntry, PngCache } from '../../../cache/cache.js';
import { etagMatches } from '../../../cache/etag.js';
import type { SharedFlight } from '../../../cache/shared-flight.js';
import { createSingleFlight } from '../../../lib/single-flight.js';
import type { UrlGuard } from '../../../net/url-guard.js';
import type { ScreenshotEngine } from '../engine/engine.js';
import { lastStepFor } from '../engine/page/last-step.js';
import { notInstalled } from '../engine/refusals.js';
import type { ScreenshotRequest } from '../request.js';
import type { ScreenshotService, ShotOwner, ShotTimings } from '../types.js';
import type { Viewport } from '../viewports.js';
import { screenshotCacheKey } from './cache-key.js';
import { acceptable, entryFacts, entryFor, servedMaxAge } from './entries.js';
import { boundApplies, outputPixelBound } from './output-bound.js';
import { preflight } from './preflight.js';
import { captureOwner } from './queue-share.js';

export type {
  ScreenshotService,
  ScreenshotStatus,
  ShotOwner,
  ShotResult,
  ShotTimings,
} from '../types.js';

/** The settings the service's policy reads (the rest of the config shapes its parts). */
export interface ScreenshotSettings {
  /** Total time of one request, queue wait included. */
  timeoutMs: number;
  /** One cache for all accounts instead of one per account. */
  cacheShared: boolean;
  cacheTtlSeconds: number;
  /** Cache lifetime of a page that answered other than 2xx. */
  errorTtlSeconds: number;
  viewports: ReadonlyMap<string, Viewport>;
}

export interface ScreenshotDeps {
  cache: PngCache;
  log: Logger;
  /** The SSRF policy a top-level URL is checked against before a browser is involved. */
  guard: UrlGuard;
  /** Queue, browser and page: what takes a capture the cache cannot answer. */
  engine: ScreenshotEngine;
  /** Single-flight across nodes (with REDIS_URL): one capture per URL and viewport for the whole fleet. */
  shared?: SharedFlight;
}

/**
 * Creates the screenshot service over the engine: the URL check, cache, 304 and coalescing, and
 * a plan turned into what the engine needs. It closes nothing: whoever made the parts closes them.
 */
export function createScreenshotService(
  settings: ScreenshotSettings,
  deps: ScreenshotDeps,
): Omit<ScreenshotService, 'close'> {
  const { log, engine, guard } = deps;
  const { timeoutMs, viewports } = settings;
  const flight = createSingleFlight<{ entry: CacheEntry; maxAge: number; timings: ShotTimings }>();

  /**
   * The engine's capture for `req`: its last step chosen by the options, and the plan turned
   * into what the engine needs (the owner's share of the queue, the output pixel bound).
   */
  function engineCapture(req: ScreenshotRequest, deadline: number, signal?: AbortSignal, owner?: ShotOwner) {
    const engineOwner = captureOwner(owner);
    return engine.capture(
      { ...req, last: lastStepFor(req.options) },
      {
        deadline,
        maxPixels: outputPixelBound(req, owner),
        ...(signal ? { signal } : {}),
        ...(engineOwner ? { owner: engineOwner } : {}),
      },
    );
  }

  return {
    viewports,

    async capture(req, owner) {
      if (!engine.available()) throw notInstalled(engine.executablePath);
      await preflight(guard, req.url);
      return engineCapture(req, Date.now() + timeoutMs, undefined, owner);
    },

    async resolve(req, opts = {}) {
      const started = Date.now();
      const deadline = started + timeoutMs;
      const { options } = req;
      // Per account unless configured shared: otherwise X-Cache, Age and 304 tell any key holder
      // whether another account captured a URL, and let it choose when one is captured for all.
      const scope = settings.cacheShared ? '' : (opts.owner?.accountId ?? '');
      // The plan's pixel bound is part of what a selector or full page holds (a shared cache
      // must not hand a free account the taller capture of a paid one).
      const bound = boundApplies(req) ? outputPixelBound(req, opts.owner) : undefined;
      const key = screenshotCacheKey(req, scope, bound);
      const format = options?.output?.format ?? 'png';
      const timings: ShotTimings = {};
      const lookup = performance.now();
      // `fresh` skips the read (the capture still replaces the entry); `ttl` may refuse an old one.
      const hit = options?.fresh ? undefined : await deps.cache.get(key);
      timings.cache = performance.now() - lookup;
      if (hit && acceptable(hit, options, started)) {
        const base = {
          etag: hit.etag,
          cache: 'HIT' as const,
          maxAge: servedMaxAge(hit, options),
          age: Math.max(0, Math.floor((Date.now() - hit.storedAt) / 1000)),
          format,
          ...entryFacts(hit),
          timings,
        };
        if (opts.ifNoneMatch !== undefined && etagMatches(opts.ifNoneMatch, hit.etag)) {
          return { ...base, kind: 'not-modified' };
        }
        return { ...base, kind: 'png', body: hit.body };
      }

      // Cached screenshots are served even without a browser; a new one needs Chromium first.
      if (!engine.available()) throw notInstalled(engine.executablePath);
      await preflight(guard, req.url);
      const { value } = await flight.do(
        key,
        async (wanted) => {
          // Without a shared cache there is nothing another node could read: coalesce locally
          // only, and stop when no caller here wants the capture. Under the shared (multi-node)
          // lock other nodes may be waiting for it, so it runs to the end.
          const shared = settings.cacheTtlSeconds === 0 ? undefined : deps.shared;
          const produce = async () => {
            const { timings: t, ...capture } = await engineCapture(
              req,
              deadline,
              shared ? undefined : wanted,
              opts.owner,
            );
            const { entry, maxAge } = entryFor(capture, options, settings);
            return { entry, value: { maxAge, timings: t }, cacheable: maxAge > 0 };
          };
          if (!shared) {
            const made = await produce();
            if (made.cacheable) {
              deps.cache
                .set(key, made.entry)
                .catch((err) => log.warn({ err }, 'screenshot cache store failed'));
            }
            return { entry: made.entry, ...made.value };
          }
          // Another node's entry answers this request only as a fresh capture would (fresh, ttl).
          const accept = (entry: CacheEntry) => acceptable(entry, options, started);
          const got = await shared.run(key, { deadline, produce, accept });
          const wait = got.waitMs > 0 ? { wait: got.waitMs } : {};
          if (got.role === 'waiter') {
            // Captured by another node: this request waited for it instead of capturing again.
            return { entry: got.entry, maxAge: servedMaxAge(got.entry, options), timings: wait };
          }
          return { entry: got.entry, maxAge: got.value.maxAge, timings: { ...wait, ...got.value.timings } };
        },
        opts.signal,
      );
      const base = {
        etag: value.entry.etag,
        cache: 'MISS' as const,
        maxAge: value.maxAge,
        age: 0,
        format,
        ...entryFacts(value.entry),
        timings: { ...timings, ...value.timings },
      };
      if (opts.ifNoneMatch !== undefined && etagMatches(opts.ifNoneMatch, value.entry.etag)) {
        return { ...base, kind: 'not-modified' };
      }
      return { ...base, kind: 'png', body: value.entry.body };
    },

    status: () => engine.status(),
    warm: () => engine.warm(),
  };
}
