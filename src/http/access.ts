import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { Logger } from 'pino';
import { AUTH_QUERY_PARAMS, type AuthContext, type Authenticator } from '../auth/authenticate.js';
import type { Plan } from '../auth/plans.js';
import { AppError } from '../errors.js';
import { type Clock, systemClock } from '../lib/clock.js';
import type { Metrics } from '../metrics/metrics.js';
import type { RateDecision, RateLimiter } from '../ratelimit/limiter.js';
import type { UsageRecorder } from '../usage/recorder.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller on protected routes (every /render/… route); null elsewhere. */
    auth: AuthContext | null;
    /** True once `access.admit` counted this request against the account's rate limit. */
    rateCounted: boolean;
  }
  interface FastifyInstance {
    access: AccessControl;
  }
}

/** What a protected route calls once its input is valid. */
export interface AccessControl {
  /**
   * Runs `check` on the caller's plan (403), then counts the request against the account's
   * rate limit (429), setting the rate-limit headers either way. Call it after validation (400)
   * and before any cache lookup or render, so the order is 401 → 400 → 403 → 429. Resolves to
   * the admitted caller.
   */
  admit(req: FastifyRequest, reply: FastifyReply, check: (plan: Plan) => void): Promise<AuthContext>;
}

/** Every route under /render/ and /webhooks is protected, whoever registers it and whenever. */
export function isProtectedRoute(url: string): boolean {
  return url.startsWith('/render/') || url === '/webhooks' || url.startsWith('/webhooks/');
}

/** Routes a signed URL may authenticate: the images, never the management routes. */
export function acceptsSignedUrls(url: string): boolean {
  return url.startsWith('/render/');
}

/** The limiter key of an account's request budget (the dashboard peeks at it too). */
export function rateLimitKey(accountId: string): string {
  return `acct:${accountId}`;
}

/**
 * The limiter key of a key's signed-URL budget: apart from the account's, so anonymous traffic on
 * a published URL cannot spend the owner's API budget (issue 26 §3).
 */
export function signedRateLimitKey(keyId: string): string {
  return `signed:${keyId}`;
}

/** The budget a request is counted against: the account's, or its key's signed-URL one. */
function budgetOf(auth: AuthContext): { key: string; name: string; limit: number; windowMs: number } {
  if (auth.via === 'signature') {
    const b = auth.plan.signedRateLimit;
    return {
      key: signedRateLimitKey(auth.keyId),
      name: `${auth.plan.name}-signed`,
      limit: b.requests,
      windowMs: b.windowSeconds * 1000,
    };
  }
  const b = auth.plan.rateLimit;
  return {
    key: rateLimitKey(auth.accountId),
    name: auth.plan.name,
    limit: b.requests,
    windowMs: b.windowSeconds * 1000,
  };
}

/** Spec §7, word for word. */
export const RATE_LIMITED = 'Rate limit exceeded';

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
    /** Counts 429s by plan. */
    metrics?: Pick<Metrics, 'rateLimited'>;
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
      req.log.error({ route: req.routeOptions.url }, 'protected route answered without access.admit()');
    }
    const b = budgetOf(req.auth);
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
    async admit(req, reply, check) {
      const auth = req.auth;
      if (!auth)
        throw new AppError('internal', 'Internal server error', { detail: 'admit() on an open route' });
      check(auth.plan);
      const b = budgetOf(auth);
      const d = await deps.limiter.consume(b.key, b.limit, b.windowMs);
      req.rateCounted = true;
      setHeaders(reply, b.name, d);
      if (!d.allowed) {
        deps.usage.record(auth.accountId, 'rate_limited');
        deps.metrics?.rateLimited(auth.plan.name);
        throw new AppError('rate_limited', RATE_LIMITED, {
          retryAfter: d.resetMs / 1000,
          detail: `account ${auth.accountId}, plan ${auth.plan.name}, budget ${b.key}`,
        });
      }
      return auth;
    },
  } satisfies AccessControl);
}
