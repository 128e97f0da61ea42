/**
 * The screenshot area: its parts made from the config (URL guard, egress proxy, browser pool,
 * queue), the service over them, and one `close()` for all of them.
 */
import type { Logger } from 'pino';
import type { PngCache } from '../../cache/cache.js';
import type { SharedFlight } from '../../cache/shared-flight.js';
import { createWorkQueue } from '../../lib/work-queue.js';
import { createEgressProxy } from '../../net/proxy.js';
import type { NetConfig } from '../../net/settings.js';
import { createUrlGuard, type UrlGuard } from '../../net/url-guard.js';
import { chromiumExecutable } from './browser.js';
import { createBrowserPool } from './pool.js';
import { createScreenshotService, type ScreenshotService } from './service.js';
import type { ScreenshotConfig } from './settings.js';
import { DEFAULT_VIEWPORT, viewportCatalogue } from './viewports.js';

export interface ScreenshotModuleDeps {
  cache: PngCache;
  log: Logger;
  /** Name resolution for the URL guard (tests inject failures); the system resolver by default. */
  guard?: UrlGuard;
  onCapture?: (outcome: string, seconds: number) => void;
  /** Called for every capture refused because the queue is full (metrics). */
  onBusy?: () => void;
  onAccountBusy?: (plan: string) => void;
  onQueueWait?: (plan: string, seconds: number) => void;
  shared?: SharedFlight;
}

/** Creates the screenshot service and the parts it runs on; nothing is launched yet. */
export function createScreenshotModule(
  config: ScreenshotConfig & NetConfig,
  deps: ScreenshotModuleDeps,
): ScreenshotService {
  const { log } = deps;
  const viewports = viewportCatalogue(config.screenshotViewports);
  // The same policy as imageUrl fetches: one allow-list setting for both.
  const guard = deps.guard ?? createUrlGuard({ allowPrivateHosts: config.allowPrivateHosts });
  const proxy = createEgressProxy({ guard, log, maxBytesPerSession: config.screenshotMaxPageBytes });
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
    sandbox: config.chromiumSandbox,
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
  const { onBusy: _, ...serviceDeps } = deps;
  const service = createScreenshotService(
    {
      timeoutMs: config.screenshotTimeoutMs,
      cacheShared: config.screenshotCacheShared,
      cacheTtlSeconds: config.screenshotCacheTtlSeconds,
      errorTtlSeconds: config.screenshotErrorTtlSeconds,
      viewports,
    },
    { ...serviceDeps, guard, pool, queue },
  );
  return {
    ...service,
    async close() {
      await queue.close();
      await pool.close();
      await proxy.close();
    },
  };
}
