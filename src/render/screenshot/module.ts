/**
 * The screenshot area: its parts made from the config (URL guard, egress proxy, browser pool,
 * queue), the service over them, its readiness check and scrape-time metrics, and one `close()`
 * for all of them.
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { type Area, startArea } from '../../area.js';
import type { PngCache } from '../../cache/cache.js';
import type { SharedFlight } from '../../cache/shared-flight.js';
import { createWorkQueue } from '../../lib/work-queue.js';
import { createEgressProxy } from '../../net/proxy.js';
import type { NetConfig } from '../../net/settings.js';
import { createUrlGuard, type UrlGuard } from '../../net/url-guard.js';
import { createBlocker, defaultBlockingConfig } from './blocking/index.js';
import { chromiumExecutable } from './engine/browser/browser.js';
import { type BrowserPool, createBrowserPool } from './engine/browser/pool.js';
import { liveGroupMembers } from './engine/browser/processes.js';
import { createScreenshotEngine } from './engine/engine.js';
import { screenshotQueueMetrics } from './metrics.js';
import { createScreenshotService } from './service/service.js';
import type { ScreenshotConfig } from './settings.js';
import type { ScreenshotService } from './types.js';
import { DEFAULT_VIEWPORT, viewportCatalogue } from './viewports.js';

export interface ScreenshotModuleDeps {
  cache: PngCache;
  log: Logger;
  /** The app's metrics registry, for the queue's fair-share metrics. */
  registry: Registry;
  /** Name resolution for the URL guard (tests inject failures); the system resolver by default. */
  guard?: UrlGuard;
  onCapture?: (outcome: string, seconds: number) => void;
  /** Called for every capture refused because the queue is full (metrics). */
  onBusy?: () => void;
  shared?: SharedFlight;
  /** The HMAC a credentialed capture's cache key holds instead of its credentials (the server secret's). */
  credentialsMac?: (value: string) => string;
}

/** Each module's browser pool: kept out of the service's API, which reports it through `status()`. */
const pools = new WeakMap<ScreenshotService, BrowserPool>();

/**
 * The browser pool behind a module, for tests that lease a context, or list or kill the
 * browser's processes themselves; the service's own API (`status()`, `warm()`) covers the rest.
 */
export function browserPoolOf(service: ScreenshotService): BrowserPool {
  const pool = pools.get(service);
  if (!pool) throw new Error('not a screenshot module made by createScreenshotArea');
  return pool;
}

/** Creates the screenshot service and the parts it runs on; nothing is launched yet. */
export function createScreenshotArea(
  config: ScreenshotConfig & NetConfig,
  deps: ScreenshotModuleDeps,
): Promise<Area<ScreenshotService>> {
  const { log, registry, onBusy, onCapture, ...serviceDeps } = deps;
  return startArea(log, async (parts) => {
    const viewports = viewportCatalogue(config.screenshotViewports);
    // The same policy as imageUrl fetches: one allow-list setting for both.
    const guard = deps.guard ?? createUrlGuard({ allowPrivateHosts: config.allowPrivateHosts });
    const proxy = createEgressProxy({ guard, log, maxBytesPerSession: config.screenshotMaxPageBytes });
    parts.add('egress proxy', () => proxy.close());
    // blockAds and blockCookieBanners: nothing loads until the first capture asks for one.
    const blocker = await createBlocker(defaultBlockingConfig(), { log });
    parts.add('blocker', () => blocker.close());
    const browser = chromiumExecutable(config.chromiumPath);
    if (browser.fellBack) {
      log.warn(
        { path: browser.path },
        'chromium-headless-shell is not installed: screenshots use the full browser, about half as fast (apt-get install chromium-headless-shell)',
      );
    }
    const pool = createBrowserPool({
      executablePath: browser.path,
      sandbox: config.chromiumSandbox,
      chromiumUser: config.chromiumUser,
      proxy,
      spareContexts: config.screenshotSpareContexts,
      maxPageMemoryBytes: config.screenshotMaxPageMemoryBytes,
      maxBrowserMemoryBytes: config.screenshotMaxBrowserMemoryBytes,
      busyPageCpuPercent: config.screenshotBusyPageCpuPercent,
      recycleAfter: config.browserRecycleAfter,
      defaultViewport: viewports.get(DEFAULT_VIEWPORT)!,
      log,
    });
    parts.add('browser pool', () => pool.close());
    const queue = createWorkQueue({
      name: 'screenshot renderer',
      concurrency: config.screenshotConcurrency,
      maxWaiting: config.screenshotQueueSize,
      ...(onBusy ? { onBusy } : {}),
    });
    parts.add('screenshot queue', () => queue.close());
    const engine = createScreenshotEngine(
      {
        timeoutMs: config.screenshotTimeoutMs,
        maxFullPageHeight: config.screenshotMaxFullPageHeight,
        maxPdfPages: config.pdfMaxPages,
      },
      {
        log,
        pool,
        queue,
        blocker,
        ...screenshotQueueMetrics(registry),
        ...(onCapture ? { onCapture } : {}),
      },
    );
    const service = createScreenshotService(
      {
        timeoutMs: config.screenshotTimeoutMs,
        cacheShared: config.screenshotCacheShared,
        cacheTtlSeconds: config.screenshotCacheTtlSeconds,
        errorTtlSeconds: config.screenshotErrorTtlSeconds,
        pdfMaxPages: config.pdfMaxPages,
        viewports,
      },
      { ...serviceDeps, log, guard, engine },
    );
    const screenshots: ScreenshotService = { ...service, close: () => parts.close() };
    pools.set(screenshots, pool);
    return {
      service: screenshots,
      checks: {
        browser: {
          // Not critical: without Chromium, templates are still served and screenshots answer 503.
          critical: false,
          run: async () => browserReady(screenshots),
          fix: 'npx cardshot doctor checks Chromium and says how to install it; GET /render/url answers 503 meanwhile',
        },
      },
      samples: { screenshots: () => sample(screenshots) },
    };
  });
}

/** The screenshot queue and the browser, read at scrape time. */
function sample(screenshots: ScreenshotService) {
  const { browser: status, queue: shots } = screenshots.status();
  return {
    queues: {
      screenshot: { active: shots.active, waiting: shots.waiting, concurrency: shots.concurrency },
    },
    browser: {
      up: status.up ? 1 : 0,
      spares: status.spares,
      launches: status.launches,
      crashes: status.crashes,
      busyPagesLowered: status.busyPagesLowered,
    },
  };
}

/** The browser check: Chromium installed, and a browser running (or why not). */
async function browserReady(screenshots: ScreenshotService): Promise<string> {
  const status = screenshots.status();
  if (!status.installed) {
    throw new Error(`Chromium is not installed at ${status.executablePath}`);
  }
  const s = status.browser;
  if (s.launchError) throw new Error(`Chromium could not be started: ${s.launchError}`);
  if (!s.up) {
    // Launched on the first screenshot (or by the server right after it starts listening).
    return 'Chromium installed; not started yet';
  }
  // A stopped browser (SIGSTOP, a debugger) still looks connected: every capture would wait
  // for its time-out. Its processes' states say so.
  const stopped = liveGroupMembers(s.pid ?? -1).filter((p) => p.state === 'T' || p.state === 't');
  if (stopped.length > 0) {
    const which = stopped.some((p) => p.pid === s.pid)
      ? `Chromium (pid ${s.pid}) is stopped`
      : `${stopped.length} of Chromium's processes are stopped (pids ${stopped.map((p) => p.pid).join(', ')})`;
    throw new Error(`${which} (SIGSTOP or a debugger): screenshots answer 503/504 until it runs again`);
  }
  const sandbox = s.sandbox
    ? `sandboxed${s.runsAs ? `, as ${s.runsAs}` : ''}`
    : `WITHOUT its sandbox${s.sandboxWarning ? `: ${s.sandboxWarning}` : ''}`;
  return `Chromium running (pid ${s.pid ?? '?'}, ${sandbox}), ${status.queue.active} capturing, ${s.spares} spare contexts`;
}
