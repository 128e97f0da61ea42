import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Plan } from '../../auth/plans.js';
import type { CacheEntry, PngCache } from '../../cache/cache.js';
import type { SharedFlight } from '../../cache/shared-flight.js';
import type { Config } from '../../config/schema.js';
import { AppError, clientClosed, isAppError } from '../../errors.js';
import { createSingleFlight } from '../../lib/single-flight.js';
import { createWorkQueue, type QueueOwner, type WorkQueue } from '../../lib/work-queue.js';
import { createEgressProxy, type EgressProxy } from '../../net/proxy.js';
import { createUrlGuard, type UrlGuard, UrlRefusedError } from '../../net/url-guard.js';
import { etagMatches } from '../template/service.js';
import { chromiumExecutable, type SandboxSetting } from './browser.js';
import { BrowserCrashError, type Capture, capturePage } from './capture.js';
import { type BrowserPool, createBrowserPool } from './pool.js';
import type { ScreenshotRequest } from './request.js';
import { DEFAULT_VIEWPORT, type Viewport, viewportCatalogue } from './viewports.js';

/** Milliseconds per phase, for Server-Timing. */
export type ShotTimings = Partial<
  Record<
    'cache' | 'wait' | 'queue' | 'launch' | 'context' | 'navigate' | 'fonts' | 'capture' | 'encode',
    number
  >
>;

/** What a screenshot request resolves to. `maxAge` and `age` are seconds, for Cache-Control and Age. */
export type ShotResult = {
  etag: string;
  cache: 'HIT' | 'MISS';
  maxAge: number;
  age: number;
  /** HTTP status of the screenshotted page (4xx/5xx pages are rendered, and cached briefly). */
  targetStatus: number;
  timings: ShotTimings;
} & ({ kind: 'not-modified' } | { kind: 'png'; body: Buffer });

/** The account a screenshot is for: its cache scope and its share of the queue. */
export interface ShotOwner {
  accountId: string;
  plan: Plan;
}

export interface ScreenshotService {
  /**
   * Cache, 304 decision, coalescing, queue and capture, in that order. A capture is shared by
   * identical concurrent requests; `signal` aborts when a client has gone: its wait ends, and a
   * capture no other request waits for stops and frees its slot. `owner` scopes the cache to the
   * account (unless the cache is shared) and takes the capture from its share of the queue.
   */
  resolve(
    req: ScreenshotRequest,
    opts?: { ifNoneMatch?: string; signal?: AbortSignal; owner?: ShotOwner },
  ): Promise<ShotResult>;
  /**
   * Takes the screenshot now: queue, browser, one retry after a crash; no cache, no coalescing.
   * For layers that add their own (cross-node single-flight, metrics).
   */
  capture(
    req: ScreenshotRequest,
    owner?: ShotOwner,
  ): Promise<Omit<Capture, 'timings'> & { timings: ShotTimings }>;
  /** Presets a request may name: og, desktop, mobile and the configured ones. */
  readonly viewports: ReadonlyMap<string, Viewport>;
  readonly pool: BrowserPool;
  readonly queue: WorkQueue;
  /** Starts Chromium and fills the spare contexts now (the server calls it after listening). */
  warm(): Promise<void>;
  close(): Promise<void>;
}

export interface ScreenshotDeps {
  cache: PngCache;
  log: Logger;
  /** Name resolution for the URL guard (tests inject failures); the system resolver by default. */
  guard?: UrlGuard;
  /** Told how each capture ended (`ok` or the error code) and how long it took (metrics). */
  onCapture?: (outcome: string, seconds: number) => void;
  /** Called for every capture refused because the queue is full (metrics). */
  onBusy?: () => void;
  /** Called for every capture refused because its account's share of the queue is full (metrics). */
  onAccountBusy?: (plan: string) => void;
  /** How long a capture waited for its slot, by the plan of its account (metrics). */
  onQueueWait?: (plan: string, seconds: number) => void;
  /** Single-flight across nodes (with REDIS_URL): one capture per URL and viewport for the whole fleet. */
  shared?: SharedFlight;
}

/** Bump when a change to capturing makes old cached screenshots wrong. */
const CAPTURE_VERSION = 1;

/**
 * The cache key of a screenshot: the normalised URL plus every option that changes the pixels
 * (the viewport, whole, as a redefined custom preset must not serve the old size; `waitUntil`,
 * as a domcontentloaded capture may still show "loading…"), and the scope: the account id, or
 * '' for a cache shared by all accounts. Hex, safe as a file name. It is also the single-flight
 * key, so a capture is only ever shared by requests that would be answered the same PNG.
 */
export function screenshotCacheKey(
  req: Pick<ScreenshotRequest, 'url' | 'viewport' | 'waitUntil'>,
  scope = '',
): string {
  const { url, viewport, waitUntil } = req;
  const identity = [
    'cardshot-screenshot',
    CAPTURE_VERSION,
    url,
    viewport.name,
    viewport.width,
    viewport.height,
    viewport.scale,
    viewport.mobile,
    waitUntil,
    scope,
  ];
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex');
}

/** The least time left for which starting a capture is worth it (a warm capture takes ~150 ms). */
const MIN_CAPTURE_MS = 250;

/** The queue or the browser could not take the request in time: a 503 the client may retry. */
function busy(detail: string): AppError {
  return new AppError('unavailable', 'The screenshot renderer is busy; retry shortly', {
    retryAfter: 2,
    detail,
  });
}

/** The account's share of the queue is taken: a 429 that names the limit, not the global 503. */
function overShare(plan: Plan, concurrency: number): AppError {
  return new AppError(
    'rate_limited',
    `Too many screenshots in progress for your account: your plan allows ${concurrency} at a time; retry when one has finished`,
    { retryAfter: 2, detail: `plan ${plan.name}: account's screenshot share of the queue is full` },
  );
}

/** The queue share of `owner` (none for requests without an account: tests, internal callers). */
function queueOwner(owner: ShotOwner | undefined): QueueOwner | undefined {
  if (!owner || owner.plan.screenshots === false) return undefined;
  const { concurrency, queue } = owner.plan.screenshots;
  const plan = owner.plan;
  return {
    id: owner.accountId,
    concurrency,
    maxWaiting: queue,
    overShare: () => overShare(plan, concurrency),
  };
}

/** Creates the screenshot service: guard, egress proxy, browser pool, queue and cache wiring. */
export function createScreenshotService(config: Config, deps: ScreenshotDeps): ScreenshotService {
  const log = deps.log;
  const viewports = viewportCatalogue(config.screenshotViewports);
  // The same policy as imageUrl fetches: one allow-list setting for both.
  const guard = deps.guard ?? createUrlGuard({ allowPrivateHosts: config.allowPrivateHosts });
  const proxy: EgressProxy = createEgressProxy({
    guard,
    log,
    maxBytesPerSession: config.screenshotMaxPageBytes,
  });
  const browser = chromiumExecutable(config.chromiumPath);
  if (browser.fellBack) {
    log.warn(
      { path: browser.path },
      'chromium-headless-shell is not installed: screenshots use the full browser, about half as fast (apt-get install chromium-headless-shell)',
    );
  }
  const pool = createBrowserPool({
    executablePath: browser.path,
    // The schema accepts only auto, on and off.
    sandbox: config.chromiumSandbox as SandboxSetting,
    chromiumUser: config.chromiumUser,
    proxy,
    spareContexts: config.screenshotSpareContexts,
    maxPageMemoryBytes: config.screenshotMaxPageMemoryBytes,
    maxBrowserMemoryBytes: config.screenshotMaxBrowserMemoryBytes,
    recycleAfter: config.browserRecycleAfter,
    defaultViewport: viewports.get(DEFAULT_VIEWPORT)!,
    log,
  });
  const queue = createWorkQueue({
    name: 'screenshot renderer',
    concurrency: config.screenshotConcurrency,
    maxWaiting: config.screenshotQueueSize,
    ...(deps.onBusy ? { onBusy: deps.onBusy } : {}),
  });
  const flight = createSingleFlight<{ entry: CacheEntry; maxAge: number; timings: ShotTimings }>();
  const timeoutMs = config.screenshotTimeoutMs;

  const notInstalled = () =>
    new AppError('unavailable', 'Screenshots are not available on this server: Chromium is not installed', {
      detail: `no executable at ${browser.path} (CARDSHOT_CHROMIUM_PATH)`,
    });

  /** Refuses a private or unresolvable top-level URL before a browser is involved. */
  async function preflight(url: string): Promise<void> {
    try {
      await guard.check(url);
    } catch (err) {
      if (!(err instanceof UrlRefusedError)) throw err;
      const host = new URL(url).hostname;
      if (err.reason === 'dns') {
        throw new AppError('bad_gateway', `Could not resolve the host name ${host}`, { detail: err.detail });
      }
      throw new AppError('bad_request', 'url points to an address that is not allowed', {
        detail: `${err.reason}: ${err.detail}`,
      });
    }
  }

  /**
   * A fresh context, or a 503 when the browser cannot give one before the deadline: "busy" while
   * the browser runs (the request waited too long for its turn), "not ready" when it does not.
   */
  async function acquire(req: ScreenshotRequest, deadline: number) {
    const pending = pool.acquire(req.viewport);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            pool.status().up
              ? busy(`no browser context within ${timeoutMs} ms`)
              : new AppError(
                  'unavailable',
                  'Screenshots are temporarily unavailable: the browser is not ready',
                  {
                    retryAfter: 5,
                    detail: `no browser context within ${timeoutMs} ms`,
                  },
                ),
          ),
        Math.max(1, deadline - Date.now()),
      );
    });
    try {
      return await Promise.race([pending, late]);
    } catch (err) {
      // A context that arrives after we gave up is handed straight back.
      pending.then((lease) => lease.release()).catch(() => {});
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  async function captureWithRetry(
    req: ScreenshotRequest,
    deadline: number,
    timings: ShotTimings,
    signal?: AbortSignal,
  ) {
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw clientClosed();
      let lease: Awaited<ReturnType<typeof acquire>>;
      try {
        lease = await acquire(req, deadline);
      } catch (err) {
        if (err instanceof AppError) throw err;
        // The browser went away between handing out the context and using it: same as a crash.
        if (attempt === 1) {
          log.warn({ err: (err as Error).message }, 'could not open a browser context; retrying once');
          continue;
        }
        throw new AppError(
          'unavailable',
          'Screenshots are temporarily unavailable: the browser is not ready',
          {
            retryAfter: 5,
            detail: (err as Error).message,
            cause: err,
          },
        );
      }
      if (lease.timings.launch > 0) timings.launch = (timings.launch ?? 0) + lease.timings.launch;
      timings.context = (timings.context ?? 0) + lease.timings.context;
      // Nobody wants the capture any more: closing its context ends every wait in it at once.
      // A hang-up while the context was being made is caught here (a listener added to an
      // aborted signal never fires).
      if (signal?.aborted) {
        lease.release();
        throw clientClosed();
      }
      const abandon = () => lease.release();
      signal?.addEventListener('abort', abandon, { once: true });
      try {
        return await capturePage(lease, { url: req.url, waitUntil: req.waitUntil, deadline, timeoutMs });
      } catch (err) {
        if (signal?.aborted) throw clientClosed();
        if (!(err instanceof BrowserCrashError)) throw err;
        if (attempt === 1 && Date.now() < deadline) {
          log.warn({ url: req.url, reason: err.message }, 'browser crashed during a capture; retrying once');
          continue;
        }
        throw new AppError(
          'bad_gateway',
          err.scope === 'page'
            ? 'The page crashed its browser tab (it may use too much memory)'
            : 'The browser crashed while rendering the page; retry later',
          { detail: `${err.message} (after ${attempt} attempts)`, cause: err },
        );
      } finally {
        signal?.removeEventListener('abort', abandon);
        // Blocked sub-resources fail quietly for the page; operators still see what was tried.
        const refused = lease.egress.refused;
        if (refused.length > 0) {
          log.info(
            { url: req.url, refused: refused.slice(0, 5), count: refused.length },
            'page requests refused',
          );
        }
        lease.release();
      }
    }
  }

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
    let started = false;
    const capture = await queue
      .run(
        async () => {
          started = true;
          t.queue = performance.now() - queued;
          deps.onQueueWait?.(owner?.plan.name ?? 'none', t.queue / 1000);
          // A slot that comes with almost no time left cannot hold a capture: still no slot.
          if (deadline - Date.now() < MIN_CAPTURE_MS)
            throw noSlot(`a slot with under ${MIN_CAPTURE_MS} ms left`);
          return captureWithRetry(req, deadline, t, signal);
        },
        signal ? AbortSignal.any([expire, signal]) : expire,
        share,
      )
      .catch((err) => {
        if (signal?.aborted) throw clientClosed();
        if (!started && expire.aborted) throw noSlot(`no slot within ${timeoutMs} ms`);
        // Refused at once: the account's share was full when it arrived.
        if (!started && isAppError(err, 'rate_limited') && owner) deps.onAccountBusy?.(owner.plan.name);
        throw err;
      });
    return { ...capture, timings: { ...t, ...capture.timings } };
  }

  return {
    viewports,
    pool,
    queue,

    async capture(req, owner) {
      if (!pool.available()) throw notInstalled();
      await preflight(req.url);
      return queuedCapture(req, Date.now() + timeoutMs, undefined, owner);
    },

    async resolve(req, opts = {}) {
      const deadline = Date.now() + timeoutMs;
      // Per account unless configured shared: otherwise X-Cache, Age and 304 tell any key holder
      // whether another account captured a URL, and let it choose when one is captured for all.
      const scope = config.screenshotCacheShared ? '' : (opts.owner?.accountId ?? '');
      const key = screenshotCacheKey(req, scope);
      const timings: ShotTimings = {};
      const lookup = performance.now();
      const hit = await deps.cache.get(key);
      timings.cache = performance.now() - lookup;
      if (hit) {
        const base = {
          etag: hit.etag,
          cache: 'HIT' as const,
          maxAge: Math.round(((hit.expiresAt ?? hit.storedAt) - hit.storedAt) / 1000),
          age: Math.max(0, Math.floor((Date.now() - hit.storedAt) / 1000)),
          targetStatus: Number(hit.meta?.targetStatus ?? 200),
          timings,
        };
        if (opts.ifNoneMatch !== undefined && etagMatches(opts.ifNoneMatch, hit.etag)) {
          return { ...base, kind: 'not-modified' };
        }
        return { ...base, kind: 'png', body: hit.body };
      }

      // Cached screenshots are served even without a browser; a new one needs Chromium first.
      if (!pool.available()) throw notInstalled();
      await preflight(req.url);
      const { value } = await flight.do(
        key,
        async (wanted) => {
          // Without a shared cache there is nothing another node could read: coalesce locally
          // only, and stop when no caller here wants the capture. Under the shared (multi-node)
          // lock other nodes may be waiting for it, so it runs to the end.
          const shared = config.screenshotCacheTtlSeconds === 0 ? undefined : deps.shared;
          const produce = async () => {
            const { timings: t, ...capture } = await queuedCapture(
              req,
              deadline,
              shared ? undefined : wanted,
              opts.owner,
            );
            const etag = createHash('sha256').update(capture.png).digest('hex').slice(0, 40);
            // A 4xx/5xx page is rendered (it is what a visitor sees) but kept only briefly; so is a
            // 3xx that had nowhere to go (no Location), which is as likely to be fixed soon.
            const ok = capture.targetStatus >= 200 && capture.targetStatus < 300;
            const maxAge = ok ? config.screenshotCacheTtlSeconds : config.screenshotErrorTtlSeconds;
            const now = Date.now();
            const entry: CacheEntry = {
              body: capture.png,
              etag,
              storedAt: now,
              expiresAt: now + maxAge * 1000,
              meta: { targetStatus: String(capture.targetStatus), finalUrl: capture.finalUrl.slice(0, 2048) },
            };
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
          const got = await shared.run(key, { deadline, produce });
          const wait = got.waitMs > 0 ? { wait: got.waitMs } : {};
          if (got.role === 'waiter') {
            // Captured by another node: this request waited for it instead of capturing again.
            const entry = got.entry;
            const maxAge = Math.round(((entry.expiresAt ?? entry.storedAt) - entry.storedAt) / 1000);
            return { entry, maxAge, timings: wait };
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
        targetStatus: Number(value.entry.meta?.targetStatus ?? 200),
        timings: { ...timings, ...value.timings },
      };
      if (opts.ifNoneMatch !== undefined && etagMatches(opts.ifNoneMatch, value.entry.etag)) {
        return { ...base, kind: 'not-modified' };
      }
      return { ...base, kind: 'png', body: value.entry.body };
    },

    async warm() {
      await pool.warm();
    },

    async close() {
      await queue.close();
      await pool.close();
      await proxy.close();
    },
  };
}
