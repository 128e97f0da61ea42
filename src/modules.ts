import path from 'node:path';
import type { Logger } from 'pino';
import { type AccountsModule, openAccounts } from './accounts/open.js';
import { type Authenticator, createAuthenticator } from './auth/authenticate.js';
import { createTieredCache, type PngCache } from './cache/cache.js';
import { createDiskCache } from './cache/disk.js';
import { createMemoryCache } from './cache/memory.js';
import type { Config } from './config/schema.js';
import { createSessions, type Sessions } from './dashboard/sessions.js';
import type { Clock } from './lib/clock.js';
import { createWorkQueue, type WorkQueue } from './lib/work-queue.js';
import { createFailoverLimiter } from './ratelimit/failover.js';
import type { RateLimiter } from './ratelimit/limiter.js';
import { createMemoryLimiter } from './ratelimit/memory.js';
import { createRedisLimiter } from './ratelimit/redis.js';
import { type ArtworkFetcher, createArtworkFetcher } from './render/image/artwork.js';
import { createScreenshotService, type ScreenshotService } from './render/screenshot/service.js';
import { createTemplateRenderer, type TemplateRenderer } from './render/template/renderer.js';
import { createTemplateService, type TemplateService } from './render/template/service.js';
import { createUsageRecorder, type UsageRecorder } from './usage/recorder.js';

/** Every stateful module the service runs, plus one `close()` that stops them in reverse order. */
export interface Modules {
  /** Store, secret, plans and the account manager. */
  accounts: AccountsModule;
  authenticator: Authenticator;
  /** Dashboard sessions (in the database). */
  sessions: Sessions;
  limiter: RateLimiter;
  usage: UsageRecorder;
  renderer: TemplateRenderer;
  artwork: ArtworkFetcher;
  cache: PngCache;
  renderQueue: WorkQueue;
  templates: TemplateService;
  /** GET /render/url; launches Chromium on first use (or on `warm()`), never at creation. */
  screenshots: ScreenshotService;
  close(): Promise<void>;
}

/** Creates the modules from configuration; shared by the server, the CLI and the tests. */
export async function createModules(
  config: Config,
  log: Logger,
  opts: { clock?: Clock } = {},
): Promise<Modules> {
  const clock = opts.clock ? { clock: opts.clock } : {};
  const started: Array<{ name: string; close: () => Promise<void> }> = [];
  const closeAll = async () => {
    // Reverse start order; one failing close is logged and does not block the others.
    for (const m of started.reverse()) {
      try {
        await m.close();
      } catch (err) {
        log.error({ err, module: m.name }, 'module close failed');
      }
    }
  };
  try {
    const accounts = await openAccounts(config, log, clock);
    started.push({ name: 'database', close: () => accounts.close() });

    const authenticator = createAuthenticator({
      store: accounts.store,
      secrets: accounts.secrets,
      plans: accounts.plans,
      log,
      cacheMs: config.keyCacheSeconds * 1000,
      ...clock,
    });
    accounts.onKeyChanged((keyId) => authenticator.invalidate(keyId));
    started.push({ name: 'authenticator', close: () => authenticator.close() });

    const sessions = createSessions({
      store: accounts.store,
      secrets: accounts.secrets,
      idleMs: config.sessionIdleMinutes * 60_000,
      maxMs: config.sessionMaxHours * 3_600_000,
      log,
      ...clock,
    });
    started.push({ name: 'sessions', close: () => sessions.close() });

    const usage = createUsageRecorder({
      store: accounts.store,
      flushMs: config.usageFlushSeconds * 1000,
      log,
      ...clock,
    });
    started.push({ name: 'usage', close: () => usage.close() });

    const limiter = await createLimiter(config, log, opts.clock);
    started.push({ name: 'rate limiter', close: () => limiter.close() });

    const cache = createTieredCache([
      { name: 'memory', cache: createMemoryCache({ maxBytes: config.cacheMemoryBytes }) },
      {
        name: 'disk',
        cache: createDiskCache({
          dir: path.join(config.dataDir, 'cache'),
          maxBytes: config.cacheDiskBytes,
          log,
        }),
      },
    ]);
    started.push({ name: 'cache', close: () => cache.close() });

    const artwork = createArtworkFetcher({
      allowPrivateHosts: config.allowPrivateHosts,
      timeoutMs: config.imageTimeoutMs,
      maxBytes: config.imageMaxBytes,
      maxPixels: config.imageMaxPixels,
      cacheTtlMs: config.imageCacheTtlSeconds * 1000,
    });
    started.push({ name: 'artwork', close: () => artwork.close() });

    const renderer = await createTemplateRenderer();
    started.push({ name: 'renderer', close: () => renderer.close() });

    const renderQueue = createWorkQueue({
      name: 'template renderer',
      concurrency: config.renderConcurrency,
      maxWaiting: config.renderQueueSize,
    });
    started.push({ name: 'render queue', close: () => renderQueue.close() });

    const templates = createTemplateService({ renderer, artwork, cache, queue: renderQueue, log });
    const screenshots = createScreenshotService(config, { cache, log });
    started.push({ name: 'screenshots', close: () => screenshots.close() });

    return {
      accounts,
      authenticator,
      sessions,
      limiter,
      usage,
      renderer,
      artwork,
      cache,
      renderQueue,
      templates,
      screenshots,
      close: closeAll,
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/**
 * Per-process limits by default; with REDIS_URL, shared limits that fall back to per-process
 * ones whenever Redis cannot answer in time. Start-up waits briefly for the first connection
 * so the first requests do not fall back needlessly, but never fails on Redis.
 */
async function createLimiter(config: Config, log: Logger, clock?: Clock): Promise<RateLimiter> {
  const memory = createMemoryLimiter(clock ? { clock } : {});
  if (config.redisUrl === '') return memory;
  let lastError = '';
  const redis = createRedisLimiter({
    url: config.redisUrl,
    prefix: config.redisPrefix,
    timeoutMs: config.redisTimeoutMs,
    ...(clock ? { clock } : {}),
    onClientError: (err) => {
      // ioredis reports every failed reconnect; one line per distinct error is enough.
      if (err.message !== lastError) log.debug({ err: err.message }, 'redis client error');
      lastError = err.message;
    },
  });
  await redis.probe(1000).catch(() => {});
  return createFailoverLimiter({ primary: redis, fallback: memory, timeoutMs: config.redisTimeoutMs, log });
}
