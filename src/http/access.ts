import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Logger } from 'pino';
import { AUTH_QUERY_PARAMS, type AuthContext, type Authenticator } from '../auth/authenticate.js';
import type { Plan } from '../auth/plans.js';
import { AppError } from '../errors.js';
import { type Clock, systemClock } from '../lib/clock.js';
import { type Budget, budgetOf, RATE_LIMITED } from '../ratelimit/budgets.js';
import type { RateDecision, RateLimiter } from '../ratelimit/limiter.js';
import type { BudgetState, RenderCaller } from '../render/command.js';
import type { UsageRecorder } from '../usage/recorder.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller on protected routes (every /render/… route); null elsewhere. */
    auth: AuthContext | null;
    /** True once the render command counted this request against its rate budget. */
    rateCounted: boolean;
  }
  interface FastifyInstance {
    access: AccessControl;
  }
}

/** What a protected route calls once its input is valid. */
export interface AccessControl {
  /**
   * The authenticated caller as the render command takes it (the budget its credential spends:
   * the account's for a key, the key's signed-URL one for a signed URL), and the callback the
   * command calls once it counted the request, which sets the rate-limit headers (on a 429
   * too). Call it after validation (400), so the order is 401 → 400 → 403 → 429.
   */
  callerOf(
    req: FastifyRequest,
    reply: FastifyReply,
  ): { auth: AuthContext; caller: RenderCaller; onBudget: (state: BudgetState) => void };
  /**
   * For protected routes that render nothing (the webhook endpoints): runs `check` on the plan
   * (403), then counts the request against its budget (429), setting the rate-limit headers.
   */
  admit(req: FastifyRequest, reply: FastifyReply, check: (plan: Plan) => void): Promise<AuthContext>;
}

/** Every route under /render/, /webhooks, /storage, /fonts and /sites, and /unfurl, is protected, whoever registers it and whenever. */
export function isProtectedRoute(url: string): boolean {
  return (
    url.startsWith('/render/') ||
    url === '/webhooks' ||
    url.startsWith('/webhooks/') ||
    url === '/storage' ||
    url.startsWith('/storage/') ||
    url === '/fonts' ||
    url.startsWith('/fonts/') ||
    url === '/sites' ||
    url.startsWith('/sites/') ||
    url === '/unfurl'
  );
}

/** Routes a signed URL may authenticate: the images, never the management routes. */
export function acceptsSignedUrls(url: string): boolean {
  return url.startsWith('/render/');
}

/** The render caller of an authenticated request: a signed URL spends its key's own budget. */
export function renderCallerOf(auth: AuthContext): RenderCaller {
  const { accountId, plan, keyId } = auth;
  return auth.via === 'signature'
    ? { accountId, plan, keyId, limit: 'signed' }
    : { accountId, plan, keyId, limit: 'key' };
}

/** The budget an authenticated request is counted against (peeked at for the headers of others). */
function budgetOfAuth(auth: AuthContext): Budget {
  return auth.via === 'signature'
    ? budgetOf({ ...auth, spends: 'signed' })
    : budgetOf({ accountId: auth.accountId, plan: auth.plan, spends: 'account' });
}

export { RATE_LIMITED, rateLimitKey, signedRateLimitKey } from '../ratelimit/budgets.js';

/**
 * Wires authentication into every /render/ route (an onRoute hook, so routes registered later,
 * in any plugin, are covered without code of their own), decorates `req.auth`, adds the
 * rate-limit headers to every authenticated response, and counts errors as usage.
 */
export function installAccessControl(
  app: FastifyInstance,
  deps: {
    authenticator: Authenticator;
    limiter: RateLimiter;
    usage: UsageRecorder;
    log: Logger;
    clock?: Clock;
  },
): void {
  const clock = deps.clock ?? systemClock;
  app.decorateRequest('auth', null);
  app.decorateRequest('rateCounted', false);

  const setHeaders = (reply: FastifyReply, policy: string, d: RateDecision) => {
    const resetS = Math.ceil(d.resetMs / 1000);
    reply.header('RateLimit-Policy', `"${policy}";q=${d.limit};w=${Math.round(d.windowMs / 1000)}`);
    reply.header('RateLimit', `"${policy}";r=${d.remaining};t=${resetS}`);
    reply.header('X-RateLimit-Limit', String(d.limit));
    reply.header('X-RateLimit-Remaining', String(d.remaining));
    reply.header('X-RateLimit-Reset', String(Math.ceil((clock.now() + d.resetMs) / 1000)));
  };

  const authenticate: onRequestHookHandler = async (req, reply) => {
    // Answers are `public`: a shared cache must not hand one caller's header-authenticated answer
    // to a caller without the key. Signed and api_key URLs differ per key, so the URL suffices.
    reply.header('Vary', 'x-api-key');
    const query = (req.query ?? {}) as Record<string, unknown>;
    const auth = await deps.authenticator.authenticate({
      method: req.method,
      path: req.url.split('?', 1)[0] ?? '/',
      headers: req.headers,
      query,
    });
    // Signed URLs are for publishing images; one leaked from a page must not read or change
    // an account's settings (its webhooks), so elsewhere it is no credential at all.
    if (auth.via === 'signature' && !acceptsSignedUrls(req.routeOptions.url ?? '')) {
      throw new AppError('unauthorized', 'Missing or invalid API key', {
        detail: `a signed URL was used on ${req.routeOptions.url}, which takes an API key only`,
      });
    }
    req.auth = auth;
    // Credentials are consumed here; handlers validate the rest of the query without them.
    for (const p of AUTH_QUERY_PARAMS) delete query[p];
  };

  app.addHook('onRoute', (route) => {
    if (!isProtectedRoute(route.url)) return;
    const existing = route.onRequest;
    route.onRequest = [authenticate, ...(existing ? (Array.isArray(existing) ? existing : [existing]) : [])];
  });

  // Responses the limiter did not count (400, 403, errors) still tell the caller its budget.
  app.addHook('onSend', async (req, reply, payload) => {
    if (!req.auth || req.rateCounted) return payload;
    if (reply.statusCode < 400) {
      req.log.error(
        { route: req.routeOptions.url },
        'protected route answered without counting its rate budget',
      );
    }
    const b = budgetOfAuth(req.auth);
    const d = await deps.limiter.peek(b.key, b.limit, b.windowMs);
    setHeaders(reply, b.name, d);
    return payload;
  });

  app.addHook('onResponse', async (req, reply) => {
    if (req.auth && reply.statusCode >= 400 && reply.statusCode !== 429) {
      deps.usage.record(req.auth.accountId, 'error');
    }
  });

  app.decorate('access', {
    callerOf(req, reply) {
      const auth = req.auth;
      if (!auth)
        throw new AppError('internal', 'Internal server error', { detail: 'callerOf() on an open route' });
      return {
        auth,
        caller: renderCallerOf(auth),
        onBudget: ({ policy, decision }) => {
          req.rateCounted = true;
          setHeaders(reply, policy, decision);
        },
      };
    },
    async admit(req, reply, check) {
      const auth = req.auth;
      if (!auth)
        throw new AppError('internal', 'Internal server error', { detail: 'admit() on an open route' });
      check(auth.plan);
      const b = budgetOfAuth(auth);
      const d = await deps.limiter.consume(b.key, b.limit, b.windowMs);
      req.rateCounted = true;
      setHeaders(reply, b.name, d);
      if (!d.allowed) {
        deps.usage.record(auth.accountId, 'rate_limited');
        throw new AppError('rate_limited', RATE_LIMITED, {
          retryAfter: d.resetMs / 1000,
          detail: `account ${auth.accountId}, plan ${auth.plan.name}, budget ${b.key}`,
        });
      }
      return auth;
    },
  } satisfies AccessControl);
}
