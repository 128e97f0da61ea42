/**
 * How each area is started from the ones before it: the wiring `createModules` runs for the
 * areas a process asked for. Each area's module is imported when its area starts (see
 * createModules).
 */
import type { Logger } from 'pino';
import type { Area } from './area.js';
import type { AreaName } from './areas.js';
import type { PngCache } from './cache/cache.js';
import type { SharedFlight } from './cache/shared-flight.js';
import type { Metrics } from './metrics/metrics.js';
import type { ModuleOptions } from './modules.js';
import { createRenderCommand } from './render/command.js';
import type { Config } from './settings.js';

/** Starts one area: registers its checks, metrics and close. */
export type Starter = <S>(name: string, area: Promise<Area<S>>) => Promise<S>;

/** What every area's start gets. */
export interface StartContext {
  config: Config;
  log: Logger;
  opts: ModuleOptions<AreaName>;
  metrics: Metrics;
  start: Starter;
  has(area: AreaName): boolean;
}

/** Templates, accounts, Redis, auth, sessions, usage and the limiter: each when asked for. */
export async function startCore({ config, log, opts, start, has }: StartContext) {
  const clock = opts.clock ? { clock: opts.clock } : {};
  // First: plans name templates, and a broken template file stops the start before anything opens.
  const registry = has('template files')
    ? await start(
        'template files',
        (await import('./render/template/files/area.js')).createTemplateFilesArea(config, {
          log,
          ...(opts.builtinTemplatesDir ? { builtinDir: opts.builtinTemplatesDir } : {}),
        }),
      )
    : undefined;
  const accounts = has('accounts')
    ? await start(
        'accounts',
        (await import('./accounts/module.js')).createAccountsArea(config, {
          log,
          templates: needed(registry, 'template files').names(),
          ...clock,
          ...(opts.passwordCost !== undefined ? { passwordCost: opts.passwordCost } : {}),
        }),
      )
    : undefined;
  const redis = has('redis')
    ? await start('redis', (await import('./redis/module.js')).createRedisArea(config, { log }))
    : null;
  const auth = has('auth')
    ? await start(
        'auth',
        (await import('./auth/module.js')).createAuthArea(config, {
          accounts: needed(accounts, 'accounts'),
          redis,
          log,
          ...clock,
        }),
      )
    : undefined;
  const store = () => needed(accounts, 'accounts').store;
  const secrets = () => needed(accounts, 'accounts').secrets;
  const sessions = has('sessions')
    ? await start(
        'sessions',
        (await import('./dashboard/module.js')).createSessionsArea(config, {
          store: store(),
          secrets: secrets(),
          log,
          ...clock,
        }),
      )
    : undefined;
  const usage = has('usage')
    ? await start(
        'usage',
        (await import('./usage/module.js')).createUsageArea(config, { store: store(), log, ...clock }),
      )
    : undefined;
  const limiter = has('rate limiter')
    ? await start(
        'rate limiter',
        (await import('./ratelimit/module.js')).createRateLimitArea(config, { redis, log, ...clock }),
      )
    : undefined;
  return {
    registry,
    accounts,
    redis,
    authenticator: auth?.authenticator,
    notices: auth?.notices,
    sessions,
    usage,
    limiter,
  };
}

/** The cache, artwork, themes, templates, screenshots and the render command over them. */
export async function startRendering(ctx: StartContext, core: Awaited<ReturnType<typeof startCore>>) {
  const { config, log, opts, metrics, start, has } = ctx;
  const clock = opts.clock ? { clock: opts.clock } : {};
  const { redis } = core;
  const cached = has('cache')
    ? await start(
        'cache',
        (await import('./cache/module.js')).createCacheArea(config, {
          redis,
          log,
          onLookup: (tier, hit) => metrics.observeCacheLookup(tier, hit),
        }),
      )
    : undefined;
  const artwork = has('artwork')
    ? await start(
        'artwork',
        (await import('./render/image/module.js')).createImageArea(config, {
          log,
          onFailure: (reason) => metrics.imageFetchFailed(reason),
        }),
      )
    : undefined;
  const themes = has('themes')
    ? await start(
        'themes',
        (await import('./themes/module.js')).createThemesArea(config, {
          store: needed(core.accounts, 'accounts').store,
          artwork: needed(artwork, 'artwork'),
          log,
          ...clock,
        }),
      )
    : undefined;
  const cache = cached?.cache;
  const drawn = has('templates')
    ? await start(
        'templates',
        (await import('./render/template/module.js')).createTemplateArea(config, {
          registry: needed(core.registry, 'template files'),
          // Tests may give their own source; otherwise the accounts' stored themes, if started.
          ...((opts.themes ?? themes) ? { themes: opts.themes ?? themes } : {}),
          artwork: needed(artwork, 'artwork'),
          cache: needed(cache, 'cache'),
          log,
          onRender: (template, seconds) => metrics.observeRender(template, seconds),
          onBusy: () => metrics.queueRejected('template'),
          ...(opts.templateEngine ? { engine: opts.templateEngine } : {}),
        }),
      )
    : undefined;
  const flight = cached?.flight ?? null;
  const screenshots = has('screenshots')
    ? await startScreenshots(ctx, core, { cache: needed(cache, 'cache'), cached, flight })
    : undefined;
  const render = has('render')
    ? createRenderCommand({
        templates: needed(drawn, 'templates').templates,
        screenshots: needed(screenshots, 'screenshots'),
        limiter: needed(core.limiter, 'rate limiter'),
        usage: needed(core.usage, 'usage'),
        onRateLimited: (plan) => metrics.rateLimited(plan),
      })
    : undefined;
  return {
    cache,
    redisCache: cached?.redisCache,
    flight,
    artwork,
    themes,
    renderer: drawn?.renderer,
    renderQueue: drawn?.renderQueue,
    templates: drawn?.templates,
    screenshots,
    render,
  };
}

/**
 * The screenshot area: this node's browser, or on an API node (CARDSHOT_ROLE=api) the workers'
 * through PostgreSQL (roles/remote-shots.ts), with no browser here.
 */
async function startScreenshots(
  { config, log, opts, metrics, start }: StartContext,
  core: Awaited<ReturnType<typeof startCore>>,
  parts: {
    cache: PngCache;
    cached: { redisCache?: unknown } | undefined;
    flight: SharedFlight | null;
  },
) {
  if (config.role === 'api') {
    const { createRemoteScreenshotArea } = await import('./roles/remote-shots.js');
    const { meetingPoint } = await import('./roles/role.js');
    return start(
      'screenshots',
      createRemoteScreenshotArea(config, {
        ...meetingPoint(config),
        secrets: needed(core.accounts, 'accounts').secrets,
        log,
      }),
    );
  }
  const { flight, cached } = parts;
  return start(
    'screenshots',
    (await import('./render/screenshot/module.js')).createScreenshotArea(config, {
      cache: parts.cache,
      log,
      registry: metrics.registry,
      onCapture: (outcome, seconds) => metrics.observeCapture(outcome, seconds),
      onBusy: () => metrics.queueRejected('screenshot'),
      ...(flight && cached?.redisCache ? { shared: flight } : {}),
      ...(opts.screenshotGuard ? { guard: opts.screenshotGuard } : {}),
      // The server secret keys the credentials' part of a cache key, so it holds across
      // nodes and restarts; without the accounts area the service uses a per-process key.
      ...(core.accounts ? { credentialsMac: core.accounts.secrets.credentialsMac } : {}),
    }),
  );
}

/** An area's service that `resolveAreas` guarantees; a clear error if the wiring ever breaks that. */
function needed<S>(service: S | undefined, area: AreaName): S {
  if (service === undefined) throw new Error(`createModules: the ${area} area was needed but not started`);
  return service;
}
