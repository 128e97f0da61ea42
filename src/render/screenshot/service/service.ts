import type { Logger } from 'pino';
import type { CacheEntry, PngCache } from '../../../cache/cache.js';
import { etagMatches } from '../../../cache/etag.js';
import type { SharedFlight } from '../../../cache/shared-flight.js';
import { AppError, clientClosed, isAppError } from '../../../errors.js';
import { createSingleFlight } from '../../../lib/single-flight.js';
import type { WorkQueue } from '../../../lib/work-queue.js';
import type { UrlGuard } from '../../../net/url-guard.js';
import type { Blocker } from '../blocking/index.js';
import { type CapturePageFn, captureWithRetry } from '../engine/attempts.js';
import type { BrowserPool } from '../engine/browser/pool.js';
import { capturePage } from '../engine/page/capture.js';
import { busy, notInstalled, preflight, queueOwner } from '../engine/refusals.js';
import type { ScreenshotRequest } from '../request.js';
import type { ScreenshotService, ShotOwner, ShotTimings } from '../types.js';
import type { Viewport } from '../viewports.js';
import { screenshotCacheKey } from './cache-key.js';
import { acceptable, entryFacts, entryFor, servedMaxAge } from './entries.js';
import { boundApplies, outputPixelBound } from './output-bound.js';

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
  /** Output pixels a full-page or element capture may be tall (the `fullPage` option). */
  maxFullPageHeight: number;
}

export interface ScreenshotDeps {
  cache: PngCache;
  log: Logger;
  /** The SSRF policy a top-level URL is checked against before a browser is involved. */
  guard: UrlGuard;
  pool: BrowserPool;
  queue: WorkQueue;
  /** Captures a page in a lease (tests inject a fake); capturePage by default. */
  capturePage?: CapturePageFn;
  /** Told how each capture ended (`ok` or the error code) and how long it took (metrics). */
  onCapture?: (outcome: string, seconds: number) => void;
  /** Called for every capture refused because its account's share of the queue is full (metrics). */
  onAccountBusy?: (plan: string) => void;
  /** How long a capture waited for its slot, by the plan of its account (metrics). */
  onQueueWait?: (plan: string, seconds: number) => void;
  /** Single-flight across nodes (with REDIS_URL): one capture per URL and viewport for the whole fleet. */
  shared?: SharedFlight;
  /** Ad and cookie-banner blocking (the blockAds and blockCookieBanners options). */
  blocker?: Blocker;
}

/** The least time left for which starting a capture is worth it (a warm capture takes ~150 ms). */
const MIN_CAPTURE_MS = 250;

/**
 * Creates the screenshot service over its parts: cache, 304, coalescing, queue policy and
 * retries. It closes nothing: whoever made the parts closes them.
 */
export function createScreenshotService(
  settings: ScreenshotSettings,
  deps: ScreenshotDeps,
): Omit<ScreenshotService, 'close'> {
  const { log, pool, queue, guard } = deps;
  const { timeoutMs, viewports } = settings;
  const flight = createSingleFlight<{ entry: CacheEntry; maxAge: number; timings: ShotTimings }>();
  const attempts = {
    pool,
    log,
    timeoutMs,
    maxHeight: settings.maxFullPageHeight,
    capturePage: deps.capturePage ?? capturePage,
    ...(deps.blocker ? { blocker: deps.blocker } : {}),
  };

  /** One capture in a queue slot; waiting for the slot counts against the request's deadline. */
  async function queuedCapture(
    req: ScreenshotRequest,
    deadline: number,
    signal?: AbortSignal,
    owner?: ShotOwner,
  ) {
    const started = performance.now();
    try {
      const shot = await queuedCaptureUntimed(req, deadline, signal, owner);
      deps.onCapture?.('ok', (performance.now() - started) / 1000);
      return shot;
    } catch (err) {
      deps.onCapture?.(err instanceof AppError ? err.code : 'internal', (performance.now() - started) / 1000);
      throw err;
    }
  }

  async function queuedCaptureUntimed(
    req: ScreenshotRequest,
    deadline: number,
    signal?: AbortSignal,
    owner?: ShotOwner,
  ) {
    // The request's one timings record: the queue, the pool and the capture write into it.
    const t: ShotTimings = {};
    const queued = performance.now();
    // A request that cannot get a slot in time is told the service is busy (503), not that
    // the page was slow (504); one that waited behind its own account's captures (they held
    // its whole share when it arrived) is told that instead, as a 429 naming the limit.
    const share = queueOwner(owner);
    const behindOwnWork = share !== undefined && queue.ownerAtLimit(share.id);
    const noSlot = (detail: string) => {
      if (!behindOwnWork) return busy(detail);
      deps.onAccountBusy?.(owner!.plan.name);
      return share!.overShare!();
    };
    const expire = AbortSignal.timeout(Math.max(1, deadline - Date.now()));
    const ends = signal ? AbortSignal.any([expire, signal]) : expire;
    let started = false;
    const capture = await queue
      .run(
        async (slot) => {
          started = true;
          t.queue = performance.now() - queued;
          deps.onQueueWait?.(owner?.plan.name ?? 'none', t.queue / 1000);
          // A slot that comes with almost no time left cannot hold a capture: still no slot.
          if (deadline - Date.now() < MIN_CAPTURE_MS)
            throw noSlot(`a slot with under ${MIN_CAPTURE_MS} ms left`);
          // A page that only waits (delay, waitForSelector) lends its slot to others meanwhile.
          const idle = <R>(wait: Promise<R>) =>
            slot.idle(wait).catch((err: unknown) => {
              if (err !== ends.reason) throw err;
              if (signal?.aborted) throw clientClosed();
              throw busy(`no slot to capture in after waiting, within ${timeoutMs} ms`);
            });
          const maxPixels = outputPixelBound(req, owner);
          return captureWithRetry({ ...attempts, idle, maxPixels }, req, deadline, t, signal);
        },
        ends,
        share,
      )
      .catch((err) => {
        if (signal?.aborted) throw clientClosed();
        if (!started && expire.aborted) throw noSlot(`no slot within ${timeoutMs} ms`);
        // Refused at once: the account's share was full when it arrived.
        if (!started && isAppError(err, 'rate_limited') && owner) deps.onAccountBusy?.(owner.plan.name);
        throw err;
      });
    return capture;
  }

  return {
    viewports,

    async capture(req, owner) {
      if (!pool.available()) throw notInstalled(pool.executablePath);
      await preflight(guard, req.url);
      return queuedCapture(req, Date.now() + timeoutMs, undefined, owner);
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
      if (!pool.available()) throw notInstalled(pool.executablePath);
      await preflight(guard, req.url);
      const { value } = await flight.do(
        key,
        async (wanted) => {
          // Without a shared cache there is nothing another node could read: coalesce locally
          // only, and stop when no caller here wants the capture. Under the shared (multi-node)
          // lock other nodes may be waiting for it, so it runs to the end.
          const shared = settings.cacheTtlSeconds === 0 ? undefined : deps.shared;
          const produce = async () => {
            const { timings: t, ...capture } = await queuedCapture(
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

    status() {
      return {
        installed: pool.available(),
        executablePath: pool.executablePath,
        browser: pool.status(),
        queue: { active: queue.active, waiting: queue.waiting, concurrency: queue.concurrency },
      };
    },

    async warm() {
      await pool.warm();
    },
  };
}
