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
import type { Config } from './config/schema.js';
import { createSessions, type Sessions } from './dashboard/sessions.js';
import type { Clock } from './lib/clock.js';
import { createWorkQueue, type WorkQueue } from './lib/work-queue.js';
import { createFailoverLimiter } from './ratelimit/failover.js';
import type { RateLimiter } from './ratelimit/limiter.js';
import { createMemoryLimiter } from './ratelimit/memory.js';
import { createRedisLimiter } from './ratelimit/redis.js';
import type { RedisBreaker } from './redis/breaker.js';
import { dedupeErrors } from './redis/client.js';
import { openRedis, type RedisModule } from './redis/open.js';
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
  try {
    const accounts = await openAccounts(config, log, clock);
    started.push({ name: 'database', close: () => accounts.close() });

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
    });
    started.push({ name: 'usage', close: () => usage.close() });

    const limiter = await createLimiter(config, log, redis?.breaker, opts.clock);
    started.push({ name: 'rate limiter', close: () => limiter.close() });

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
      ...(redisCache ? [{ name: 'redis', cache: redisCache }] : []),
    ]);
    started.push({ name: 'cache', close: () => cache.close() });
    const flight = redis ? createSharedFlight({ redis, cache, log }) : null;
    if (flight) started.push({ name: 'shared flight', close: () => flight.close() });

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
    const screenshots = createScreenshotService(config, {
      cache,
      log,
      ...(flight && redisCache ? { shared: flight } : {}),
    });
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
): Promise<RateLimiter> {
  const memory = createMemoryLimiter(clock ? { clock } : {});
  if (config.redisUrl === '') return memory;
  const redis = createRedisLimiter({
    url: config.redisUrl,
    prefix: config.redisPrefix,
    timeoutMs: config.redisTimeoutMs,
    ...(clock ? { clock } : {}),
    onClientError: dedupeErrors((err) => log.debug({ err }, 'redis client error')),
  });
  await redis.probe(1000).catch(() => {});
  return createFailoverLimiter({
    primary: redis,
    fallback: memory,
    timeoutMs: config.redisTimeoutMs,
    log,
    ...(breaker ? { breaker } : {}),
  });
}
