import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import type { AccountsModule } from './accounts/open.js';
import { requireModules } from './areas.js';
import type { Authenticator } from './auth/authenticate.js';
import type { DashboardDeps } from './dashboard/context.js';
import { registerDashboard } from './dashboard/index.js';
import type { Sessions } from './dashboard/sessions.js';
import type { DeliveryService } from './delivery/service.js';
import { AppError } from './errors.js';
import type { Health } from './health/health.js';
import { installAccessControl } from './http/access.js';
import {
  answerClientError,
  installErrorHandling,
  installNodeAnswers,
  sendError,
  toAppError,
} from './http/errors.js';
import { installJsonBodyParser } from './http/json-body.js';
import { installObservation } from './http/observe.js';
import { registerOpenApi } from './http/openapi.js';
import { parseQueryString } from './http/query.js';
import { requestIdFor } from './http/request-id.js';
import { registerFontRoutes } from './http/routes/fonts.js';
import { registerHealthRoutes } from './http/routes/health.js';
import { registerJobRoutes } from './http/routes/jobs.js';
import { registerMetricsRoute } from './http/routes/metrics.js';
import { registerOgRoute } from './http/routes/og.js';
import { registerTemplateRoutes } from './http/routes/render-template.js';
import { registerScreenshotRoutes } from './http/routes/render-url.js';
import { registerSiteRoutes } from './http/routes/sites.js';
import { registerStorageRoutes } from './http/routes/storage.js';
import { registerUnfurlRoute } from './http/routes/unfurl.js';
import { registerWebhookRoutes } from './http/routes/webhooks.js';
import type { HttpConfig } from './http/settings.js';
import { readTrustProxy } from './http/trust-proxy.js';
import type { Jobs } from './jobs/module.js';
import type { Clock } from './lib/clock.js';
import type { Metrics } from './metrics/metrics.js';
import type { RateLimiter } from './ratelimit/limiter.js';
import type { RenderCommand } from './render/command.js';
import type { ScreenshotService } from './render/screenshot/service/service.js';
import type { TemplateRegistry } from './render/template/types.js';
import type { Sites } from './sites/module.js';
import type { UsageRecorder } from './usage/recorder.js';
import type { WebhookService } from './webhooks/service.js';

export interface AppDeps {
  /** The server's settings, and what the dashboard it mounts reads. */
  config: HttpConfig & DashboardDeps['config'];
  log: Logger;
  /** Plan, rate limit, service and usage in one call: what every render route calls. */
  render: RenderCommand;
  /** The templates the OpenAPI document and the playground describe (read at request time). */
  registry: TemplateRegistry;
  /** The viewports GET /render/url accepts; status and warm-up for health. */
  screenshots: ScreenshotService;
  authenticator: Authenticator;
  limiter: RateLimiter;
  usage: UsageRecorder;
  /** Accounts, keys, passwords and plans, for the dashboard. */
  accounts: AccountsModule;
  sessions: Sessions;
  /** The Theme page's service (see DashboardDeps). */
  themes: DashboardDeps['themes'];
  metrics: Metrics;
  health: Health;
  /** The jobs API (null: not served, as in a one-card CLI run). */
  jobs?: Jobs | null;
  /** Webhook endpoints of the caller's account (/webhooks). */
  webhooks: WebhookService;
  /** The link unfurl check (GET /unfurl, the dashboard's Link preview); not served when absent. */
  sites?: Sites | null;
  /** Storage targets of the caller's account (/storage) and render uploads (store=s3). */
  delivery: DeliveryService;
  clock?: Clock;
  /** Time for a request's headers and body to arrive (default 30 s; tests shorten it). */
  requestTimeoutMs?: number;
}

/** Time for a whole request (headers and body) to arrive; rendering time is not counted. */
const REQUEST_TIMEOUT_MS = 30_000;
/**
 * How often Node looks for requests past their time. Node's default (30 s) let a truncated
 * request wait up to twice the time-out (issue 20: 408 after 35 s for headers, 65 s for a
 * body); checking twice a second keeps the answer within half a second of it.
 */
const TIMEOUT_CHECK_EVERY_MS = 500;

/** Builds the Fastify app from ready modules. Importing this file does no I/O. */
export function createApp(deps: AppDeps): FastifyInstance {
  // Modules spread from a process that did not start an area leave it out: stop here, naming it.
  requireModules(
    deps,
    [
      'render',
      'registry',
      'screenshots',
      'authenticator',
      'limiter',
      'usage',
      'accounts',
      'sessions',
      'themes',
    ],
    'the HTTP app',
  );
  const requestTimeout = deps.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    // Our own onResponse hook writes one line per request (with secrets redacted) instead.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.config.bodyLimitBytes,
    // Client address and https from X-Forwarded-* only as far as the operator says proxies set them.
    trustProxy: trustProxyOption(deps.config.trustProxy),
    // A load balancer's request id is kept so one id follows the request across hops (unless it
    // is long, unusual or shaped like a secret: see requestIdFor).
    genReqId: (req) => requestIdFor(req.headers['x-request-id']),
    // Our own 503 (below) keeps the `{ "error" }` shape while the server closes.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // A request whose headers and body have not all arrived after this long gets 408: without
    // it a truncated body would hold its connection for ever.
    requestTimeout,
    http: {
      // Headers get the same time as the whole request (Node's default is 60 s), and timed-out
      // requests are found within TIMEOUT_CHECK_EVERY_MS.
      headersTimeout: requestTimeout,
      requestTimeout,
      connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_EVERY_MS, requestTimeout),
      // Node's own 400 for a missing Host has an empty body: the onRequest hook answers instead.
      requireHostHeader: false,
    },
    clientErrorHandler: answerClientError,
    routerOptions: { querystringParser: parseQueryString },
    // A path Fastify cannot decode (`/%`, `/render/url%zz`) is refused before routing, so the
    // onRequest hook has not run: the shared headers are set here.
    frameworkErrors: (err, req, reply) => {
      setSharedHeaders(req, reply);
      const appErr =
        err.code === 'FST_ERR_BAD_URL'
          ? new AppError('bad_request', 'The URL path is not valid (a malformed percent-encoding?)')
          : toAppError(err, deps.config.bodyLimitBytes);
      if (appErr.code === 'internal') req.log.error({ err }, 'unhandled framework error');
      sendError(reply, appErr);
    },
  });

  installNodeAnswers(app.server);

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });

  // Only JSON bodies: a text/plain body is refused with 415 instead of being half-understood.
  app.removeContentTypeParser('text/plain');
  installJsonBodyParser(app);

  app.addHook('onRequest', async (req, reply) => {
    setSharedHeaders(req, reply);
    checkHost(req, reply);
    if (closing) throw new AppError('unavailable', 'The server is shutting down', { retryAfter: 1 });
  });
  // One line per request (secrets redacted, key id but never the key) and its metrics.
  installObservation(app, deps.metrics);

  installErrorHandling(app, deps.config.bodyLimitBytes);
  // Before any route: its onRoute hook protects every /render/ route registered after it.
  installAccessControl(app, deps);
  // Also before the routes: it collects their schemas as they are registered.
  registerOpenApi(app, deps.config, deps.registry);
  // In a plugin, so the routes are registered after the OpenAPI collector has loaded.
  app.register(async (api) => {
    registerTemplateRoutes(api, deps);
    registerScreenshotRoutes(api, deps);
    registerWebhookRoutes(api, deps);
    registerStorageRoutes(api, deps);
    const sites = deps.sites;
    if (sites) registerUnfurlRoute(api, { ...deps, sites });
    const cards = sites?.cards;
    if (cards) {
      registerSiteRoutes(api, { ...deps, cards });
      registerOgRoute(api, { og: cards.og });
    }
    // In a plugin of its own: its raw-body parser, body limit and 413 message stay its own.
    const fonts = deps.themes.fonts;
    if (fonts) api.register(async (scope) => registerFontRoutes(scope, { fonts }));
    registerHealthRoutes(api, deps);
    registerMetricsRoute(api, { metrics: deps.metrics, token: deps.config.metricsToken });
    // In a plugin of its own: its CSV parser, body limit and 413 message stay its own.
    const jobs = deps.jobs;
    if (jobs) api.register(async (scope) => registerJobRoutes(scope, { ...deps, jobs }));
  });
  registerDashboard(app, deps);
  return app;
}

/** Fastify's `trustProxy` for CARDSHOT_TRUST_PROXY (validated when the config was loaded). */
function trustProxyOption(value: string): false | string[] | ((address: string, hop: number) => boolean) {
  const trust = readTrustProxy(value);
  if (trust.kind === 'none') return false;
  if (trust.kind === 'addresses') return [...trust.list];
  // Not the number itself: Fastify 5.12 reads a numeric trustProxy as "trust no one" (it cannot
  // check the nearest peer), which would silently drop the client address and https. Hop 0 is
  // the socket's peer, so `hop < hops` believes exactly the nearest `hops` proxies.
  const { hops } = trust;
  return (_address, hop) => hop < hops;
}

/** Headers every answer carries: the request id to quote in a report, and no MIME sniffing. */
function setSharedHeaders(req: FastifyRequest, reply: FastifyReply): void {
  reply.header('X-Request-Id', req.id);
  reply.header('X-Content-Type-Options', 'nosniff');
}

/**
 * HTTP/1.1 requires exactly one Host header (RFC 9112 §3.2). Node accepts a duplicate (and
 * keeps the first), which lets a proxy in front and Cardshot disagree on the host; a missing
 * one is refused here rather than by Node's empty-bodied 400. The connection is closed after.
 */
function checkHost(req: FastifyRequest, reply: FastifyReply): void {
  const raw = req.raw.rawHeaders;
  let hosts = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'host') hosts++;
  if (hosts === 1 || (hosts === 0 && req.raw.httpVersion === '1.0')) return;
  reply.header('Connection', 'close');
  throw new AppError(
    'bad_request',
    hosts === 0 ? 'A Host header is required' : 'Send exactly one Host header, not several',
  );
}
