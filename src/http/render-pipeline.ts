import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext } from '../auth/authenticate.js';
import type { Plan } from '../auth/plans.js';
import type { UsageRecorder } from '../usage/recorder.js';
import { clientGoneSignal } from './client-gone.js';
import { recordTimings } from './timings.js';

/**
 * What a render service resolves to: an image (`kind: 'png'` for any format, the name predating
 * the others; `contentType` says which, PNG when absent), or "you already have it" (304).
 */
export type Rendered = {
  etag: string;
  contentType?: string;
  /** HIT or MISS; absent where the answer does not say (a card's 304). */
  cache?: 'HIT' | 'MISS';
  timings: Readonly<Record<string, number | undefined>>;
} & ({ kind: 'not-modified' } | { kind: 'png'; body: Buffer });

/** What every service call gets: the client's ETag and a signal that aborts when it hangs up. */
export interface ResolveOptions {
  ifNoneMatch?: string;
  signal: AbortSignal;
}

/** What a render route declares; the pipeline does the rest, in the same order for every route. */
export interface RenderRoute<Input, Result extends Rendered> {
  /** Validates the request (400); runs before the plan and the rate limit. */
  parse(req: FastifyRequest): Input;
  /** Refuses what the caller's plan does not include (403). */
  allow(plan: Plan, input: Input): void;
  /** Calls the service. `auth` is the admitted caller (its account scopes caches and queues). */
  resolve(input: Input, opts: ResolveOptions, auth: AuthContext): Promise<Result>;
  /** What a fresh answer counts as in the account's usage. */
  usage: 'template' | 'screenshot';
  /** The answer's Cache-Control. */
  cacheControl(result: Result, auth: AuthContext): string;
  /** Headers of this route's answers besides the shared ones (Age, X-Target-Status). */
  headers?(result: Result): Record<string, string>;
  /** Server-Timing descriptions besides the cache status. */
  notes?(result: Result): Record<string, string>;
}

/**
 * The one request flow of every render route (design §1): parse (400) → plan (403) and rate
 * limit (429) → If-None-Match and a client-gone signal → service → usage → the PNG or a 304,
 * with Cache-Control, ETag, X-Cache and Server-Timing (from the request's timings record).
 */
export function renderHandler<Input, Result extends Rendered>(
  app: FastifyInstance,
  usage: UsageRecorder,
  route: RenderRoute<Input, Result>,
): (req: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> {
  return async (req, reply) => {
    const started = performance.now();
    const input = route.parse(req);
    // Plan (403) and rate limit (429) come after validation and before the cache or any work.
    const auth = await app.access.admit(req, reply, (plan) => route.allow(plan, input));
    const inm = req.headers['if-none-match'];
    // A client that hangs up stops its wait (a queue slot, an artwork fetch) and its work when
    // nobody else waits for it, so it cannot hold a slot for the whole time-out.
    const opts: ResolveOptions = {
      ...(typeof inm === 'string' ? { ifNoneMatch: inm } : {}),
      signal: clientGoneSignal(req, reply),
    };
    const result = await route.resolve(input, opts, auth);
    usage.record(auth.accountId, usageKind(result, route.usage));
    reply.header('Cache-Control', route.cacheControl(result, auth));
    reply.header('ETag', `"${result.etag}"`);
    for (const [name, value] of Object.entries(route.headers?.(result) ?? {})) reply.header(name, value);
    recordTimings(req, reply, {
      phases: { ...result.timings, total: performance.now() - started },
      notes: { ...(result.cache ? { cache: result.cache } : {}), ...route.notes?.(result) },
      cache: result.cache ?? null,
    });
    if (result.kind === 'not-modified') return reply.code(304).send();
    reply.type(result.contentType ?? 'image/png');
    return reply.code(200).send(result.body);
  };
}

/**
 * The usage a resolved request counts as: the route's fresh render whenever one was made (a MISS,
 * even when answered 304: `If-None-Match: *` on a miss still captures), else a 304 or a cache hit.
 */
export function usageKind(
  result: Pick<Rendered, 'kind' | 'cache'>,
  fresh: 'template' | 'screenshot',
): 'not_modified' | 'cache_hit' | 'template' | 'screenshot' {
  if (result.cache === 'MISS') return fresh;
  if (result.kind === 'not-modified') return 'not_modified';
  return result.cache === 'HIT' ? 'cache_hit' : fresh;
}
