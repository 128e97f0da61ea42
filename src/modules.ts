import type { Renderer } from '@takumi-rs/core';
import type { Logger } from 'pino';
import type { AccountsModule } from './accounts/open.js';
import { AREA_NAMES, type AreaName, resolveAreas, type WithNeeds } from './areas.js';
import type { Authenticator } from './auth/authenticate.js';
import type { KeyNotices } from './auth/key-notices.js';
import type { PngCache } from './cache/cache.js';
import type { RedisPngCache } from './cache/redis.js';
import type { SharedFlight } from './cache/shared-flight.js';
import type { Sessions } from './dashboard/sessions.js';
import type { Delivery } from './delivery/module.js';
import { createHealth, type Health } from './health/health.js';
import type { Jobs } from './jobs/module.js';
import type { JobQueue } from './jobs/queue/types.js';
import type { Clock } from './lib/clock.js';
import { createCloser } from './lib/closer.js';
import type { WorkQueue } from './lib/work-queue.js';
import { createMetrics, type Metrics } from './metrics/metrics.js';
import { startSites } from './modules-sites.js';
import { type StartContext, type Starter, startCore, startRendering } from './modules-wiring.js';
import { startWork } from './modules-work.js';
import type { UrlGuard } from './net/url-guard.js';
import type { AreaLimiter } from './ratelimit/module.js';
import type { RedisModule } from './redis/open.js';
import type { RenderCommand } from './render/command.js';
import type { ArtworkFetcher } from './render/image/artwork.js';
import type { ScreenshotService } from './render/screenshot/types.js';
import type { TemplateRenderer } from './render/template/renderer.js';
import type { TemplateService } from './render/template/service.js';
import type { TemplateRegistry, ThemeSource } from './render/template/types.js';
import type { Config } from './settings.js';
import type { Sites } from './sites/module.js';
import type { ThemeService } from './themes/service.js';
import type { UsageRecorder } from './usage/recorder.js';
import { CARDSHOT_VERSION } from './version.js';
import type { WebhookService } from './webhooks/service.js';

/** Every stateful module the service runs, plus one `close()` that stops them in reverse order. */
export interface ModuleSet {
  /** Prometheus metrics of this app; modules report into it. */
  metrics: Metrics;
  /** Readiness checks (/readyz); a module that joins later registers its own. */
  health: Health;
  /** The areas this process started, in start order. */
  areas: readonly AreaName[];
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
   * and metrics. Null on a single node (and in a process without auth or the cache).
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
  /** Plan → rate limit → service → usage in one call: HTTP routes, previews and job workers. */
  render: RenderCommand;
  /** The queue of work outliving a request: pg-boss with DATABASE_URL, else SQLite in the data dir. */
  queue: JobQueue;
  /** Webhook endpoints, the jobs' event sink, and this node's delivery workers. */
  webhooks: WebhookService;
  /** Storage targets (S3-compatible buckets) and the uploads of renders and job items to them. */
  delivery: Delivery;
  /** Jobs: their store, this node's item workers, result files and links. */
  jobs: Jobs;
  /** Pages read without a browser: the link unfurl check and the page head reader. */
  sites: Sites;
  close(): Promise<void>;
}

/** What each area adds to the modules. */
interface Provides {
  'template files': 'registry';
  accounts: 'accounts';
  redis: never;
  auth: 'authenticator';
  sessions: 'sessions';
  usage: 'usage';
  'rate limiter': 'limiter';
  cache: 'cache';
  artwork: 'artwork';
  themes: 'themes';
  templates: 'renderer' | 'renderQueue' | 'templates';
  screenshots: 'screenshots';
  render: 'render';
  queue: 'queue';
  webhooks: 'webhooks';
  delivery: 'delivery';
  jobs: 'jobs';
  sites: 'sites';
}

/**
 * The modules of a process that started areas `A` (all by default): only what those areas and
 * the ones they need provide, so code given the modules of a smaller process cannot even name
 * a module it did not start.
 */
export type Modules<A extends AreaName = AreaName> = Pick<
  ModuleSet,
  Provides[WithNeeds<A>] | 'metrics' | 'health' | 'areas' | 'scale' | 'close'
>;

/** What `createModules` takes besides the config and the log. */
export interface ModuleOptions<A extends AreaName> {
  /** The areas this process uses (each brings what it needs); all of them by default (the server). */
  areas?: readonly A[];
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
  /** False: deliver no webhooks from this process. */
  webhookWorkers?: boolean;
  /** The unfurl check's URL guard (tests give one that admits their fixture site). */
  unfurlGuard?: UrlGuard;
  /** The one certificate authority the unfurl check trusts instead of the system ones (tests' https fixtures). */
  unfurlCa?: string;
  /** The storage uploads' URL guard (tests give one that admits their S3 server). */
  storageGuard?: UrlGuard;
  /** The delay after failed upload attempt n (tests shorten the back-off). */
  storageBackoff?: (attempt: number) => number;
}

/**
 * Creates the modules from configuration, area by area in start order; shared by the server,
 * the CLI and the tests. Each area gets its slice of the config and the services of the areas
 * before it; its checks and metrics are registered here, and it is closed in reverse order.
 * Only the areas asked for (and what they need) start; reading a module of another area throws
 * at once, naming it, rather than handing out an undefined. Each area's module is imported
 * when its area starts: loading the screenshot engine, the database drivers and the Redis
 * client was most of what a one-card `cardshot render` spent before drawing (docs/architecture.md).
 */
export async function createModules<A extends AreaName = AreaName>(
  config: Config,
  log: Logger,
  opts: ModuleOptions<A> = {},
): Promise<Modules<A>> {
  if (opts.passwordCost !== undefined && config.nodeEnv !== 'test') {
    throw new Error('passwordCost is for tests (NODE_ENV=test): the service hashes passwords at full cost');
  }
  const areas = resolveAreas(opts.areas ?? AREA_NAMES);
  // Collected only when they can be read (a metrics token is set): otherwise they cost nothing.
  const metrics = createMetrics({ version: CARDSHOT_VERSION, enabled: config.metricsToken !== '' });
  const health = createHealth();
  const started = createCloser(log);
  const start: Starter = async (name, area) => {
    const { service, checks = {}, samples = {}, close } = await area;
    started.add(name, close);
    for (const [check, run] of Object.entries(checks)) health.register(check, run);
    for (const [source, read] of Object.entries(samples)) metrics.sample(source, read);
    return service;
  };
  const ctx: StartContext = { config, log, opts, metrics, start, has: (a) => areas.includes(a) };
  try {
    const core = await startCore(ctx);
    const rendering = await startRendering(ctx, core);
    const sites = await startSites(ctx, core, rendering);
    const { queue, webhooks, delivery, jobs } = await startWork(ctx, core, rendering, sites);
    const { redis, notices, ...coreModules } = core;
    const { redisCache, flight, ...renderModules } = rendering;
    const set: Partial<ModuleSet> = {
      metrics,
      health,
      areas,
      ...coreModules,
      ...renderModules,
      scale: redis && notices && flight ? { redis, redisCache: redisCache ?? null, notices, flight } : null,
      queue,
      webhooks,
      delivery,
      jobs,
      sites,
      close: () => started.close(),
    };
    return guardMissing(set, areas) as Modules<A>;
  } catch (err) {
    await started.close();
    throw err;
  }
}

/**
 * The modules with every module of an area not started replaced by a getter that throws,
 * naming the area (not enumerable, so spreading the modules skips it rather than throwing).
 */
function guardMissing(set: Partial<ModuleSet>, areas: readonly AreaName[]): Partial<ModuleSet> {
  for (const [key, value] of Object.entries(set)) {
    if (value !== undefined) continue;
    delete (set as Record<string, unknown>)[key];
    Object.defineProperty(set, key, {
      enumerable: false,
      get() {
        throw new Error(
          `modules.${key} is not available: its area was not started in this process (started: ${areas.join(', ')})`,
        );
      },
    });
  }
  return set;
}
