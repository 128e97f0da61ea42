import type { Renderer } from '@takumi-rs/core';
import type { Logger } from 'pino';
import { createAccountsArea } from './accounts/module.js';
import type { AccountsModule } from './accounts/open.js';
import type { Area } from './area.js';
import type { Authenticator } from './auth/authenticate.js';
import type { KeyNotices } from './auth/key-notices.js';
import { createAuthArea } from './auth/module.js';
import type { PngCache } from './cache/cache.js';
import { createCacheArea } from './cache/module.js';
import type { RedisPngCache } from './cache/redis.js';
import type { SharedFlight } from './cache/shared-flight.js';
import { createSessionsArea } from './dashboard/module.js';
import type { Sessions } from './dashboard/sessions.js';
import { createHealth, type Health } from './health/health.js';
import { createJobQueue } from './jobs/queue/open.js';
import type { JobQueue } from './jobs/queue/types.js';
import type { Clock } from './lib/clock.js';
import { createCloser } from './lib/closer.js';
import type { WorkQueue } from './lib/work-queue.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import type { UrlGuard } from './net/url-guard.js';
import { type AreaLimiter, createRateLimitArea } from './ratelimit/module.js';
import { createRedisArea } from './redis/module.js';
import type { RedisModule } from './redis/open.js';
import type { ArtworkFetcher } from './render/image/artwork.js';
import { createImageArea } from './render/image/module.js';
import { createScreenshotArea } from './render/screenshot/module.js';
import type { ScreenshotService } from './render/screenshot/types.js';
import { createTemplateFilesArea } from './render/template/files/area.js';
import { createTemplateArea } from './render/template/module.js';
import type { TemplateRenderer } from './render/template/renderer.js';
import type { TemplateService } from './render/template/service.js';
import type { TemplateRegistry, ThemeSource } from './render/template/types.js';
import type { Config } from './settings.js';
import { createThemesArea } from './themes/module.js';
import type { ThemeService } from './themes/service.js';
import { createUsageArea } from './usage/module.js';
import type { UsageRecorder } from './usage/recorder.js';
import { CARDSHOT_VERSION } from './version.js';
import { createWebhooksArea } from './webhooks/module.js';
import type { WebhookService } from './webhooks/service.js';

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
  limiter: AreaLimiter;
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
  /** Every template (built-ins and files); reloaded outside production, so read it per request. */
  registry: TemplateRegistry;
  templates: TemplateService;
  /** Account brand themes; the card routes' `ThemeSource` (cached per node for a few seconds). */
  themes: ThemeService;
  /** GET /render/url; launches Chromium on first use (or on `warm()`), never at creation. */
  screenshots: ScreenshotService;
  /** The queue of work outliving a request: pg-boss with DATABASE_URL, else SQLite in the data dir. */
  queue: JobQueue;
  /** Webhook endpoints, the jobs' event sink, and this node's delivery workers. */
  webhooks: WebhookService;
  close(): Promise<void>;
}

/**
 * Creates the modules from configuration, area by area in start order; shared by the server,
 * the CLI and the tests. Each area gets its slice of the config and the services of the areas
 * before it; its checks and metrics are registered here, and it is closed in reverse order.
 */
export async function createModules(
  config: Config,
  log: Logger,
  opts: {
    clock?: Clock;
    /** The screenshots' URL guard (tests give one whose resolver maps fixture host names). */
    screenshotGuard?: UrlGuard;
    /** Brand themes for the card routes instead of the accounts' stored ones (tests). */
    themes?: ThemeSource;
    /** The built-in templates' directory (tests use a fixture one). */
    builtinTemplatesDir?: string;
    /** A takumi engine with its fonts loaded, shared by the apps of a test run. */
    templateEngine?: Renderer;
    /** scrypt's cost (log2 N) for dashboard passwords: a cheaper one for tests, refused elsewhere. */
    passwordCost?: number;
    /** The webhook deliveries' URL guard (tests give one that admits their receivers). */
    webhookGuard?: UrlGuard;
    /** The delay after failed webhook attempt n (tests shorten the back-off). */
    webhookBackoff?: (attempt: number) => number;
    /** False: deliver no webhooks from this process (a one-shot CLI command). */
    webhookWorkers?: boolean;
  } = {},
): Promise<Modules> {
  if (opts.passwordCost !== undefined && config.nodeEnv !== 'test') {
    throw new Error('passwordCost is for tests (NODE_ENV=test): the service hashes passwords at full cost');
  }
  const clock = opts.clock ? { clock: opts.clock } : {};
  // Collected only when they can be read (a metrics token is set): otherwise they cost nothing.
  const metrics = createMetrics({ version: CARDSHOT_VERSION, enabled: config.metricsToken !== '' });
  const health = createHealth();
  const started = createCloser(log);
  const start = async <S>(name: string, area: Promise<Area<S>>): Promise<S> => {
    const { service, checks = {}, samples = {}, close } = await area;
    started.add(name, close);
    for (const [check, run] of Object.entries(checks)) health.register(check, run);
    for (const [source, read] of Object.entries(samples)) metrics.sample(source, read);
    return service;
  };
  try {
    // First: plans name templates, and a broken template file stops the start before anything opens.
    const registry = await start(
      'template files',
      createTemplateFilesArea(config, {
        log,
        ...(opts.builtinTemplatesDir ? { builtinDir: opts.builtinTemplatesDir } : {}),
      }),
    );
    const accounts = await start(
      'accounts',
      createAccountsArea(config, {
        log,
        templates: registry.names(),
        ...clock,
        ...(opts.passwordCost !== undefined ? { passwordCost: opts.passwordCost } : {}),
      }),
    );
    const redis = await start('redis', createRedisArea(config, { log }));
    const { authenticator, notices } = await start(
      'auth',
      createAuthArea(config, { accounts, redis, log, ...clock }),
    );
    const { store, secrets } = accounts;
    const sessions = await start('sessions', createSessionsArea(config, { store, secrets, log, ...clock }));
    const usage = await start('usage', createUsageArea(config, { store, log, ...clock }));
    const limiter = await start('rate limiter', createRateLimitArea(config, { redis, log, ...clock }));
    const { cache, redisCache, flight } = await start(
      'cache',
      createCacheArea(config, { redis, log, onLookup: (tier, hit) => metrics.observeCacheLookup(tier, hit) }),
    );
    const artwork = await start(
      'artwork',
      createImageArea(config, { log, onFailure: (reason) => metrics.imageFetchFailed(reason) }),
    );
    const themes = await start('themes', createThemesArea(config, { store, artwork, log, ...clock }));
    const { renderer, renderQueue, templates } = await start(
      'templates',
      createTemplateArea(config, {
        registry,
        // Tests may give their own source; otherwise the accounts' stored themes.
        themes: opts.themes ?? themes,
        artwork,
        cache,
        log,
        onRender: (template, seconds) => metrics.observeRender(template, seconds),
        onBusy: () => metrics.queueRejected('template'),
        ...(opts.templateEngine ? { engine: opts.templateEngine } : {}),
      }),
    );
    const screenshots = await start(
      'screenshots',
      createScreenshotArea(config, {
        cache,
        log,
        registry: metrics.registry,
        onCapture: (outcome, seconds) => metrics.observeCapture(outcome, seconds),
        onBusy: () => metrics.queueRejected('screenshot'),
        ...(flight && redisCache ? { shared: flight } : {}),
        ...(opts.screenshotGuard ? { guard: opts.screenshotGuard } : {}),
      }),
    );

    const queue = await start('queue', openQueueArea(config, log));
    const webhooks = await start(
      'webhooks',
      createWebhooksArea(config, {
        store,
        secrets,
        queue,
        log,
        ...clock,
        ...(opts.webhookGuard ? { guard: opts.webhookGuard } : {}),
        ...(opts.webhookBackoff ? { backoff: opts.webhookBackoff } : {}),
        ...(opts.webhookWorkers === false ? { deliver: false } : {}),
        onAttempt: (outcome, seconds) => metrics.observeWebhookAttempt(outcome, seconds),
      }),
    );

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
      registry,
      templates,
      themes,
      screenshots,
      queue,
      webhooks,
      close: () => started.close(),
    };
  } catch (err) {
    await started.close();
    throw err;
  }
}

/** The queue as an area: closed after the areas that work on it (they start after it). */
async function openQueueArea(config: Config, log: Logger): Promise<Area<JobQueue>> {
  const queue = await createJobQueue(config, {
    onError: (err) => log.warn({ err }, 'queue storage error (the workers carry on)'),
  });
  return { service: queue, close: () => queue.close() };
}
