import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { assertTemplateAllowed } from '../../auth/plans.js';
import { AppError } from '../../errors.js';
import { parseTemplateRequest } from '../../render/template/request.js';
import type { CardResult, TemplateService } from '../../render/template/service.js';
import type { UsageRecorder } from '../../usage/recorder.js';
import { pngCacheControl } from '../cache-control.js';
import { clientGoneSignal } from '../client-gone.js';
import { documentOnly } from '../schemas/common.js';
import { renderTemplateGet, renderTemplatePost } from '../schemas/render.js';
import { serverTiming } from '../server-timing.js';

/** Cards are content-addressed by their ETag, so a year and `immutable` are safe (spec §4.1, §8). */
export const TEMPLATE_CACHE_CONTROL = 'public, max-age=31536000, immutable';
const TEMPLATE_MAX_AGE = 31_536_000;

/**
 * POST /render/template (JSON body, spec §4.1) and GET /render/template (the same fields as
 * query parameters, so an og:image tag can point straight at us). Both answer identically.
 */
export function registerTemplateRoutes(
  app: FastifyInstance,
  deps: { templates: TemplateService; usage: UsageRecorder },
): void {
  const handle = async (
    req: FastifyRequest,
    reply: FastifyReply,
    input: unknown,
    source: 'body' | 'query',
  ) => {
    const started = performance.now();
    const parsed = parseTemplateRequest(input, source);
    // Plan (403) and rate limit (429) come after validation and before any fetch or render.
    await app.access.admit(req, reply, (plan) => assertTemplateAllowed(plan, parsed.template));
    // Stop waiting for a queue slot (or an artwork fetch) when the client has gone away.
    const signal = clientGoneSignal(req, reply);
    const result = await deps.templates.resolve(parsed, {
      ...(typeof req.headers['if-none-match'] === 'string'
        ? { ifNoneMatch: req.headers['if-none-match'] }
        : {}),
      signal,
      // imageUrl downloads in flight are limited per account too.
      ...(req.auth ? { account: req.auth.accountId } : {}),
    });
    if (req.auth) {
      const kind =
        result.kind === 'not-modified' ? 'not_modified' : result.cache === 'HIT' ? 'cache_hit' : 'template';
      deps.usage.record(req.auth.accountId, kind);
    }
    // A signed answer is cacheable until its exp only, not for a year.
    const yearOrExp = pngCacheControl(req.auth, TEMPLATE_MAX_AGE, { immutable: true });
    reply.header('Cache-Control', yearOrExp);
    return send(reply, result, performance.now() - started);
  };

  app.post('/render/template', documentOnly(renderTemplatePost), (req, reply) => {
    // Fields in the query of a POST would be silently ignored: say so instead (credentials were
    // taken out of the query by authentication already).
    const stray = Object.keys((req.query ?? {}) as object);
    if (stray.length > 0) {
      const name = JSON.stringify(stray[0]!.slice(0, 40));
      throw new AppError(
        'bad_request',
        `POST reads the card's fields from the JSON body, not the query string (got ${name})`,
      );
    }
    return handle(req, reply, req.body, 'body');
  });
  app.get('/render/template', documentOnly(renderTemplateGet), (req, reply) =>
    handle(req, reply, req.query, 'query'),
  );
}

function send(reply: FastifyReply, result: CardResult, totalMs: number): FastifyReply {
  reply.header('ETag', `"${result.etag}"`);
  if (result.kind === 'not-modified') {
    reply.header('Server-Timing', serverTiming({ ...result.timings, total: totalMs }));
    return reply.code(304).send();
  }
  reply.header('X-Cache', result.cache);
  // takumi encodes the PNG inside its render call; the phase is named so a reader of the
  // header does not go looking for a missing encode step.
  const extra: Record<string, string> = { cache: result.cache };
  if (result.timings.render !== undefined) extra.encode = 'included in render';
  reply.header('Server-Timing', serverTiming({ ...result.timings, total: totalMs }, extra));
  reply.type('image/png');
  return reply.code(200).send(result.body);
}
