import path from 'node:path';
import type { Logger } from 'pino';
import { type AccountsModule, openAccounts } from './accounts/open.js';
import { type Authenticator, createAuthenticator } from './auth/authenticate.js';
import { createKeyNotices, type KeyNotices } from './auth/key-notices.js';
import { createTieredCache, type PngCache } from './cache/cache.js';
import { createDiskCache } from './cache/disk.js';
import { createMemoryCache } from './cache/memory.js';
import { createRedisCache, type RedisPngCache } from './cache/redis.js';
import { createSharedFlight, type SharedFlight } from './cache/shared-flight.js';
import { createSessions, type Sessions } from './dashboard/sessions.js';
import { createHealth, type Health } from './health/health.js';
import { checkDataDir } from './health/storage.js';
import type { Clock } from './lib/clock.js';
import { createWorkQueue, type WorkQueue } from './lib/work-queue.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { createFailoverLimiter } from './ratelimit/failover.js';
import type { RateLimiter } from './ratelimit/limiter.js';
import { createMemoryLimiter } from './ratelimit/memory.js';
import { createRedisLimiter, type RedisLimiter } from './ratelimit/redis.js';
import type { RedisBreaker } from './redis/breaker.js';
import { dedupeErrors } from './redis/client.js';
import { openRedis, type RedisModule } from './redis/open.js';
import { type ArtworkFetcher, createArtworkFetcher } from './render/image/artwork.js';
import { screenshotQueueMetrics } from './render/screenshot/metrics.js';
import { createScreenshotModule } from './render/screenshot/module.js';
import { liveGroupMembers } from './render/screenshot/processes.js';
import type { ScreenshotService } from './render/screenshot/service.js';
import { TEMPLATE_NAMES } from './render/template/registry.js';
import { createTemplateRenderer, type TemplateRenderer } from './render/template/renderer.js';
import { createTemplateService, type TemplateService } from './render/template/service.js';
import type { Config } from './settings.js';
import { describeDatabase } from './storage/open.js';
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
  /**
   * With REDIS_URL: the node's shared Redis (its breaker's health), the Redis cache tier,
   * revocation notices and the cross-node single-flight, each with a health() for /readyz
   * and metrics. Null on a single node.
   */
  scale: {
    redis: RedisModule;
    redisCache: RedisPngCache | null;
    notices: KeyNotices;
    flight: SharedFlight;
  } | null;
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
    const accounts = await openAccounts(config, log, { templates: TEMPLATE_NAMES, ...clock });
    started.push({ name: 'database', close: () => accounts.close() });
    health.register('database', {
      critical: true,
      run: async () => {
        // An open breaker is the answer at once: the database hung or refused, and requests
        // that need it are being answered 503 (storage/breaker.ts).
        const breaker = accounts.store.databaseHealth?.();
        if (breaker?.state === 'open') {
          throw new Error(
            `not answering since ${new Date(breaker.since).toISOString()}: ${breaker.lastError ?? 'unknown error'}`,
          );
        }
        await accounts.store.ping();
        return accounts.store.kind;
      },
      fix: 'check that the database is running and DATABASE_URL points at it (npx cardshot doctor)',
    });
    const where = describeDatabase(config);
    health.register('storage', {
      // Not critical: reads (keys, cached cards) keep working; writes (usage, new keys,
      // sign-ins) and the disk cache fail until space is freed or the volume is writable.
      critical: false,
      run: () =>
        checkDataDir({
          dataDir: config.dataDir,
          ...(where.kind === 'sqlite' ? { sqliteFile: where.location } : {}),
          minFreeBytes: config.diskMinFreeBytes,
        }),
      fix: 'free space on the data dir disk (the disk cache already gave its share back) or make CARDSHOT_DATA_DIR writable; usage counts are kept in memory meanwhile',
    });

    const authenticator = createAuthenticator({
      store: accounts.store,
      secrets: accounts.secrets,
      plans: accounts.plans,
      log,
      cacheMs: config.keyCacheSeconds * 1000,
      timeoutMs: config.databaseTimeoutMs,
      ...clock,
    });
    accounts.onKeyChanged((keyId) => authenticator.invalidate(keyId));
    started.push({ name: 'authenticator', close: () => authenticator.close() });

    const redis = config.redisUrl === '' ? null : await openRedisModule(config, log);
    if (redis) started.push({ name: 'redis', close: () => redis.close() });
    const notices = redis
      ? createKeyNotices({ redis, invalidate: (keyId) => authenticator.invalidate(keyId), log })
      : null;
    if (notices) {
      // Changes made on this node (dashboard) reach the others; this node already forgot the key.
      accounts.onKeyChanged((keyId) => void notices.publish(keyId));
      started.push({ name: 'revocation notices', close: () => notices.close() });
    }

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
      // Counts a stop cannot write (database away, disk full) wait there for the next start.
      spillFile: path.join(config.dataDir, 'usage-pending.json'),
      closeTimeoutMs: config.databaseTimeoutMs,
    });
    started.push({ name: 'usage', close: () => usage.close() });

    const { limiter, redisLimiter } = await createLimiter(config, log, redis?.breaker, opts.clock);
    started.push({ name: 'rate limiter', close: () => limiter.close() });
    if (redis && redisLimiter) {
      // Not critical: limits, caching and coordination fall back to per-node ones while Redis is away.
      health.register('redis', {
        critical: false,
        run: async () => {
          await redisLimiter.probe(1000);
          const h = redis.health();
          if (h.state === 'down')
            throw new Error(`bypassed since ${new Date(h.since).toISOString()}: ${h.lastError}`);
          return `subscriber ${h.subscriber}`;
        },
        fix: 'check that Redis is running and REDIS_URL points at it; meanwhile each node limits and caches on its own',
      });
      metrics.sample('rate limiter', () => ({ rateLimitDegraded: limiter.degraded ? 1 : 0 }));
    }

    const redisCache =
      redis && config.cacheRedisMaxEntryBytes > 0
        ? createRedisCache({
            redis,
            maxEntryBytes: config.cacheRedisMaxEntryBytes,
            ttlSeconds: config.cacheRedisTtlSeconds,
            log,
          })
        : null;
    // Redis last: a node's own disk answers a repeat faster than a network round trip for
    // the PNG (bench/scale.ts), and a disk miss costs nothing (its index is in memory), so
    // the shared tier is asked only for what this node has never seen.
    const cache = createTieredCache(
      [
        { name: 'memory', cache: createMemoryCache({ maxBytes: config.cacheMemoryBytes }) },
        {
          name: 'disk',
          cache: createDiskCache({
            dir: path.join(config.dataDir, 'cache'),
            maxBytes: config.cacheDiskBytes,
            minFreeBytes: config.diskMinFreeBytes,
            log,
          }),
        },
        ...(redisCache ? [{ name: 'redis', cache: redisCache }] : []),
      ],
      (tier, hit) => metrics.observeCacheLookup(tier, hit),
    );
    started.push({ name: 'cache', close: () => cache.close() });
    metrics.sample('cache', () => ({ cacheTiers: cache.stats() }));
    const flight = redis ? createSharedFlight({ redis, cache, log }) : null;
    if (flight) started.push({ name: 'shared flight', close: () => flight.close() });

    const artwork = createArtworkFetcher({
      allowPrivateHosts: config.allowPrivateHosts,
      timeoutMs: config.imageTimeoutMs,
      maxBytes: config.imageMaxBytes,
      maxFetches: config.imageFetchConcurrency,
      maxFetchesPerAccount: config.imageFetchConcurrencyPerAccount,
      maxBytesInFlight: config.imageFetchMemoryBytes,
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
    const screenshots = createScreenshotModule(config, {
      cache,
      log,
      onCapture: (outcome, seconds) => metrics.observeCapture(outcome, seconds),
      onBusy: () => metrics.queueRejected('screenshot'),
      ...screenshotQueueMetrics(metrics.registry),
      ...(flight && redisCache ? { shared: flight } : {}),
    });
    started.push({ name: 'screenshots', close: () => screenshots.close() });
    health.register('browser', {
      // Not critical: without Chromium, templates are still served and screenshots answer 503.
      critical: false,
      run: async () => browserReady(screenshots),
      fix: 'npx cardshot doctor checks Chromium and says how to install it; GET /render/url answers 503 meanwhile',
    });
    metrics.sample('work', () => {
      const { browser: status, queue: shots } = screenshots.status();
      return {
        queues: {
          template: {
            active: renderQueue.active,
            waiting: renderQueue.waiting,
            concurrency: renderQueue.concurrency,
          },
          screenshot: {
            active: shots.active,
            waiting: shots.waiting,
            concurrency: shots.concurrency,
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
      scale: redis && notices && flight ? { redis, redisCache, notices, flight } : null,
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

/** The node's shared Redis connections and breaker; start-up never fails on Redis. */
function openRedisModule(config: Config, log: Logger): Promise<RedisModule> {
  return openRedis({
    url: config.redisUrl,
    prefix: config.redisPrefix,
    timeoutMs: config.redisTimeoutMs,
    log,
  });
}

/**
 * Per-process limits by default; with REDIS_URL, shared limits that fall back to per-process
 * ones whenever the node's Redis breaker is open. Start-up waits briefly for the first
 * connection so the first requests do not fall back needlessly, but never fails on Redis.
 */
async function createLimiter(
  config: Config,
  log: Logger,
  breaker: RedisBreaker | undefined,
  clock?: Clock,
): Promise<{ limiter: RateLimiter & { readonly degraded?: boolean }; redisLimiter?: RedisLimiter }> {
  const memory = createMemoryLimiter(clock ? { clock } : {});
  if (config.redisUrl === '') return { limiter: memory };
  const redisLimiter = createRedisLimiter({
    url: config.redisUrl,
    prefix: config.redisPrefix,
    timeoutMs: config.redisTimeoutMs,
    ...(clock ? { clock } : {}),
    onClientError: dedupeErrors((err) => log.debug({ err }, 'redis client error')),
  });
  await redisLimiter.probe(1000).catch(() => {});
  const limiter = createFailoverLimiter({
    primary: redisLimiter,
    fallback: memory,
    timeoutMs: config.redisTimeoutMs,
    log,
    ...(breaker ? { breaker } : {}),
  });
  return { limiter, redisLimiter };
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
