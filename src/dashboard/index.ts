import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { logAppError, retryAfterHeader, STATUS, sendError, toAppError } from '../http/errors.js';
import { registerAssets } from './assets.js';
import { type DashboardDeps, type DashboardRouteKind, sendPage } from './context.js';
import { registerAdminQueue } from './routes/admin-queue.js';
import { registerAuthRoutes } from './routes/auth.js';
import { registerJobPages } from './routes/jobs.js';
import { registerKeyRoutes } from './routes/keys.js';
import { registerLinkPreviewPages } from './routes/link-preview.js';
import { registerOverviewRoutes } from './routes/overview.js';
import { registerPlaygroundRoutes } from './routes/playground.js';
import { registerScreenshotPlaygroundRoutes } from './routes/screenshot-playground.js';
import { registerSitePages } from './routes/sites.js';
import { registerStoragePages } from './routes/storage.js';
import { registerThemeRoutes } from './routes/theme.js';
import { registerWebhookPages } from './routes/webhooks.js';
import { clearCookie, isSecure, readCookie, sameOrigin, setCookie, setSecurityHeaders } from './security.js';
import { randomId } from './sessions.js';
import { errorPage, headingFor } from './views/errors.js';

/** Forms are small; the limit keeps a form post from costing more than a card request. */
const FORM_LIMIT = 16 * 1024;
const PRE_ID = /^[A-Za-z0-9_-]{43}$/;
const PRE_MAX_AGE_S = 86_400;

/** The message of a refused CSRF or Origin check (also shown to people whose form went stale). */
export const FORM_EXPIRED =
  'This form has expired or did not come from this dashboard. Go back, reload the page and try again.';

/**
 * The web dashboard under /dashboard, in its own Fastify scope: cookies, form bodies, the
 * session and CSRF hooks, security headers, HTML error pages and the friendly 404 apply here
 * only, so the JSON API's behaviour and error contract are untouched.
 */
export function registerDashboard(app: FastifyInstance, deps: DashboardDeps): void {
  app.register(
    async (scope) => {
      await scope.register(fastifyCookie);
      scope.decorateRequest('dash', null);
      scope.addContentTypeParser(
        'application/x-www-form-urlencoded',
        { parseAs: 'string', bodyLimit: FORM_LIMIT },
        (_req, body, done) => {
          done(null, Object.fromEntries(new URLSearchParams(body as string)));
        },
      );
      installHooks(scope, deps);
      installErrorPages(scope, deps);
      registerAssets(scope);
      registerAuthRoutes(scope, deps);
      registerOverviewRoutes(scope, deps);
      registerKeyRoutes(scope, deps);
      registerPlaygroundRoutes(scope, deps);
      registerScreenshotPlaygroundRoutes(scope, deps);
      registerThemeRoutes(scope, deps);
      registerJobPages(scope, deps);
      registerWebhookPages(scope, deps);
      registerLinkPreviewPages(scope, deps);
      registerSitePages(scope, deps);
      registerStoragePages(scope, deps);
    },
    { prefix: '/dashboard' },
  );
  // Beside the dashboard's scope, not in it: its CSP and form hooks are the pages' own.
  registerAdminQueue(app, deps);
}

function kindOf(req: FastifyRequest): DashboardRouteKind {
  return req.routeOptions.config?.dashboard ?? 'public';
}

function installHooks(scope: FastifyInstance, deps: DashboardDeps): void {
  const { sessions, config } = deps;

  scope.addHook('onRequest', async (req, reply) => {
    const kind = kindOf(req);
    const secure = isSecure(req, config);
    if (kind === 'asset') return;
    const resolved = await sessions.resolve(readCookie(req, 'session', secure));
    const session = resolved.state === 'active' ? resolved.session : null;
    const expired = resolved.state === 'expired';
    if (expired) clearCookie(reply, 'session', secure);
    const preId = preSessionId(req, reply, kind, secure, Boolean(session));
    const csrf = session ? sessions.csrfToken(session.id) : preId ? sessions.csrfToken(`pre:${preId}`) : '';
    req.dash = { session, expired, preId, csrf, secure };

    if ((kind === 'page' || kind === 'api') && !session) return refuseSignedOut(req, reply, kind, expired);
  });

  // After the body is parsed: every state-changing request needs this site's Origin and the CSRF token.
  scope.addHook('preHandler', async (req) => {
    if (req.method === 'GET' || req.method === 'HEAD' || kindOf(req) === 'asset') return;
    const dash = req.dash;
    const body = req.body as Record<string, unknown> | undefined;
    const presented = req.headers['x-csrf-token'] ?? body?._csrf;
    const boundTo = dash?.session ? dash.session.id : dash?.preId ? `pre:${dash.preId}` : null;
    if (!sameOrigin(req, config)) {
      throw new AppError('forbidden', FORM_EXPIRED, { detail: `cross-origin ${req.method} refused` });
    }
    if (boundTo === null || !sessions.csrfMatches(boundTo, presented)) {
      throw new AppError('forbidden', FORM_EXPIRED, { detail: 'missing or wrong CSRF token' });
    }
  });

  scope.addHook('onSend', async (req, reply, payload) => {
    setSecurityHeaders(reply, isSecure(req, config), kindOf(req) === 'asset');
    return payload;
  });
}

/** The visitor's valid pre-session id, issuing one when a signed-out visitor opens a public page. */
function preSessionId(
  req: FastifyRequest,
  reply: FastifyReply,
  kind: DashboardRouteKind,
  secure: boolean,
  signedIn: boolean,
): string | null {
  let preId = readCookie(req, 'pre', secure) ?? null;
  if (preId !== null && !PRE_ID.test(preId)) preId = null;
  // Visitors who are not signed in get a pre-session id, so the sign-in form has a CSRF token too.
  if (!signedIn && preId === null && kind === 'public' && (req.method === 'GET' || req.method === 'HEAD')) {
    preId = randomId();
    setCookie(reply, 'pre', preId, PRE_MAX_AGE_S, secure);
  }
  return preId;
}

/** A signed-out request for a page goes to sign-in (back here after); the playground's API gets 401. */
function refuseSignedOut(req: FastifyRequest, reply: FastifyReply, kind: 'page' | 'api', expired: boolean) {
  if (kind === 'api') throw new AppError('unauthorized', 'Your session has ended; sign in again');
  const next = req.method === 'GET' ? `&next=${encodeURIComponent(req.url)}` : '';
  const where = `/dashboard/sign-in?${expired ? 'expired=1' : 'from=app'}${next}`;
  return reply.code(303).header('Location', where).send();
}

function installErrorPages(scope: FastifyInstance, deps: DashboardDeps): void {
  const page = (req: FastifyRequest, reply: FastifyReply, status: number, message: string) =>
    sendPage(
      reply,
      errorPage({
        status,
        heading: headingFor(status),
        message,
        account: req.dash?.session?.account,
        csrf: req.dash?.csrf ?? '',
      }),
      status,
    );

  scope.setErrorHandler((err: unknown, req, reply) => {
    // A route's own body limit (the screenshot capture's) is the one its 413 names.
    const appErr = toAppError(err, req.routeOptions?.bodyLimit ?? deps.config.bodyLimitBytes);
    logAppError(req.log, appErr, err);
    // The playground's JSON calls keep the API's `{ "error": … }` contract.
    if (kindOf(req) === 'api') return sendError(reply, appErr);
    // At least 1, as the API says: a 0 would invite an immediate retry that is refused again.
    if (appErr.retryAfter !== undefined) reply.header('Retry-After', retryAfterHeader(appErr.retryAfter));
    // The API's 415 message asks for JSON; dashboard forms are web forms.
    const message =
      appErr.code === 'unsupported_media_type'
        ? 'This form must be sent from its dashboard page (as a web form).'
        : appErr.message;
    return page(req, reply, STATUS[appErr.code], message);
  });

  scope.setNotFoundHandler((req, reply) =>
    page(
      req,
      reply,
      STATUS.not_found,
      'There is no dashboard page at this address. It may have moved, or the link may be mistyped.',
    ),
  );
}
