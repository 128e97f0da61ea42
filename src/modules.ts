import path from 'node:path';
import type { Logger } from 'pino';
import { type AccountsModule, openAccounts } from './accounts/open.js';
import { type Authenticator, createAuthenticator } from './auth/authenticate.js';
import { createTieredCache, type PngCache } from './cache/cache.js';
import { createDiskCache } from './cache/disk.js';
import { createMemoryCache } from './cache/memory.js';
import type { Config } from './config/schema.js';
import { createSessions, type Sessions } from './dashboard/sessions.js';
import { createHealth, type Health } from './health/health.js';
import type { Clock } from './lib/clock.js';
import { createWorkQueue, type WorkQueue } from './lib/work-queue.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { createFailoverLimiter } from './ratelimit/failover.js';
import type { RateLimiter } from './ratelimit/limiter.js';
import { createMemoryLimiter } from './ratelimit/memory.js';
import { createRedisLimiter, type RedisLimiter } from './ratelimit/redis.js';
import { type ArtworkFetcher, createArtworkFetcher } from './render/image/artwork.js';
import { createScreenshotService, type ScreenshotService } from './render/screenshot/service.js';
import { createTemplateRenderer, type TemplateRenderer } from './render/template/renderer.js';
import { createTemplateService, type TemplateService } from './render/template/service.js';
import { createUsageRecorder, type UsageRecorder } from './usage/recorder.js';
import { CARDSHOT_VERSION } from './version.js';

/** Every stateful module the service runs, plus one `close()` that stops them in reverse order. */
export interface Modules {
  /** Prometheus metrics of this app; modules report into it. */
  metrics: Metrics;
  /** Readiness checks (/readyz); a module that joins later registers its own. */
  health: Health;
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
  // Collected only when they can be read (a metrics token is set): otherwise they cost nothing.
  const metrics = createMetrics({ version: CARDSHOT_VERSION, enabled: config.metricsToken !== '' });
  const health = createHealth();
  try {
    const accounts = await openAccounts(config, log, clock);
    started.push({ name: 'database', close: () => accounts.close() });
    health.register('database', {
      critical: true,
      run: async () => {
        await accounts.store.ping();
        return accounts.store.kind;
      },
      fix: 'check that the database is running and DATABASE_URL points at it (npx cardshot doctor)',
    });

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

    const { limiter, redis } = await createLimiter(config, log, opts.clock);
    started.push({ name: 'rate limiter', close: () => limiter.close() });
    if (redis) {
      // Not critical: limits fall back to per-process ones while Redis is away.
      health.register('redis', {
        critical: false,
        run: async () => {
          await redis.probe(1000);
          return undefined;
        },
        fix: 'check that Redis is running and REDIS_URL points at it; meanwhile each node limits on its own',
      });
      metrics.sample('rate limiter', () => ({ rateLimitDegraded: limiter.degraded ? 1 : 0 }));
    }

    const cache = createTieredCache(
      [
        { name: 'memory', cache: createMemoryCache({ maxBytes: config.cacheMemoryBytes }) },
        {
          name: 'disk',
          cache: createDiskCache({
            dir: path.join(config.dataDir, 'cache'),
            maxBytes: config.cacheDiskBytes,
            log,
          }),
        },
      ],
      (tier, hit) => metrics.observeCacheLookup(tier, hit),
    );
    started.push({ name: 'cache', close: () => cache.close() });
    metrics.sample('cache', () => ({ cacheTiers: cache.stats() }));

    const artwork = createArtworkFetcher({
      allowPrivateHosts: config.allowPrivateHosts,
      timeoutMs: config.imageTimeoutMs,
      maxBytes: config.imageMaxBytes,
      maxPixels: config.imageMaxPixels,
      cacheTtlMs: config.imageCacheTtlSeconds * 1000,
      onFailure: (reason) => metrics.imageFetchFailed(reason),
    });
    started.push({ name: 'artwork', close: () => artwork.close() });

    const renderer = await createTemplateRenderer();
    started.push({ name: 'renderer', close: () => renderer.close() });

    const renderQueue = createWorkQueue({
      name: 'template renderer',
      concurrency: config.renderConcurrency,
      maxWaiting: config.renderQueueSize,
      onBusy: () => metrics.queueRejected('template'),
    });
    started.push({ name: 'render queue', close: () => renderQueue.close() });
    health.register('renderer', {
      critical: true,
      // A real card, drawn outside the queue: proves fonts and engine work, ~10 ms at most once a second.
      run: async () => {
        const { timings } = await renderer.render('blog', { title: 'Ready?' });
        return `rendered a card in ${Math.round(timings.layout + timings.render)} ms; ${renderQueue.active} rendering, ${renderQueue.waiting} waiting`;
      },
      fix: 'see the server log for the render error; npx cardshot doctor checks the fonts',
    });

    const templates = createTemplateService({
      renderer,
      artwork,
      cache,
      queue: renderQueue,
      log,
      onRender: (template, seconds) => metrics.observeRender(template, seconds),
    });
    const screenshots = createScreenshotService(config, {
      cache,
      log,
      onCapture: (outcome, seconds) => metrics.observeCapture(outcome, seconds),
      onBusy: () => metrics.queueRejected('screenshot'),
    });
    started.push({ name: 'screenshots', close: () => screenshots.close() });
    health.register('browser', {
      // Not critical: without Chromium, templates are still served and screenshots answer 503.
      critical: false,
      run: async () => browserReady(config, screenshots),
      fix: 'npx cardshot doctor checks Chromium and says how to install it; GET /render/url answers 503 meanwhile',
    });
    metrics.sample('work', () => {
      const status = screenshots.pool.status();
      return {
        queues: {
          template: {
            active: renderQueue.active,
            waiting: renderQueue.waiting,
            concurrency: renderQueue.concurrency,
          },
          screenshot: {
            active: screenshots.queue.active,
            waiting: screenshots.queue.waiting,
            concurrency: screenshots.queue.concurrency,
          },
        },
        browser: {
          up: status.up ? 1 : 0,
          spares: status.spares,
          launches: status.launches,
          crashes: status.crashes,
        },
      };
    });

    return {
      metrics,
      health,
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
async function createLimiter(
  config: Config,
  log: Logger,
  clock?: Clock,
): Promise<{ limiter: RateLimiter & { readonly degraded?: boolean }; redis?: RedisLimiter }> {
  const memory = createMemoryLimiter(clock ? { clock } : {});
  if (config.redisUrl === '') return { limiter: memory };
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
  const limiter = createFailoverLimiter({
    primary: redis,
    fallback: memory,
    timeoutMs: config.redisTimeoutMs,
    log,
  });
  return { limiter, redis };
}

/** The browser check: Chromium installed, and a browser running (or why not). */
async function browserReady(config: Config, screenshots: ScreenshotService): Promise<string> {
  if (!screenshots.pool.available()) throw new Error(`Chromium is not installed at ${config.chromiumPath}`);
  const s = screenshots.pool.status();
  if (s.launchError) throw new Error(`Chromium could not be started: ${s.launchError}`);
  if (!s.up) {
    // Launched on the first screenshot (or by the server right after it starts listening).
    return 'Chromium installed; not started yet';
  }
  return `Chromium running (pid ${s.pid ?? '?'}), ${screenshots.queue.active} capturing, ${s.spares} spare contexts`;
}
