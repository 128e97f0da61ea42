import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext } from '../auth/authenticate.js';
import type { RenderCaller, Rendered, RenderOptions } from '../render/command.js';
import { clientGoneSignal } from './client-gone.js';
import { recordTimings } from './timings.js';

/** What a route's render gets besides its input: the client's ETag, its signal, the budget callback. */
export type RouteRenderOptions = RenderOptions & { signal: AbortSignal };

/** What a render route declares; the pipeline does the rest, in the same order for every route. */
export interface RenderRoute<Input, Result extends Rendered> {
  /** Validates the request (400); runs before the plan and the rate limit. */
  parse(req: FastifyRequest): Input;
  /**
   * Calls the render command (plan 403 → rate limit 429 → service → usage) for the caller;
   * `opts` carries the client's ETag, its client-gone signal and the rate-limit headers' callback.
   */
  render(input: Input, caller: RenderCaller, opts: RouteRenderOptions): Promise<Result>;
  /** The answer's Cache-Control. */
  cacheControl(result: Result, auth: AuthContext): string;
  /** Headers of this route's answers besides the shared ones (Age, X-Target-Status). */
  headers?(result: Result): Record<string, string>;
  /** Server-Timing descriptions besides the cache status. */
  notes?(result: Result): Record<string, string>;
}

/**
 * The one request flow of every render route (design §1): parse (400) → the render command
 * (plan 403, rate limit 429, If-None-Match, service, usage) with a client-gone signal → the PNG
 * or a 304, with Cache-Control, ETag, X-Cache and Server-Timing (from the request's timings
 * record). Authentication ran before (the access control's onRequest hook).
 */
export function renderHandler<Input, Result extends Rendered>(
  app: FastifyInstance,
  route: RenderRoute<Input, Result>,
): (req: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> {
  return async (req, reply) => {
    const started = performance.now();
    const input = route.parse(req);
    const { auth, caller, onBudget } = app.access.callerOf(req, reply);
    const inm = req.headers['if-none-match'];
    // A client that hangs up stops its wait (a queue slot, an artwork fetch) and its work when
    // nobody else waits for it, so it cannot hold a slot for the whole time-out.
    const result = await route.render(input, caller, {
      ...(typeof inm === 'string' ? { ifNoneMatch: inm } : {}),
      signal: clientGoneSignal(req, reply),
      onBudget,
    });
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
