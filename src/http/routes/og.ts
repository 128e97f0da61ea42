import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OgService } from '../../sites/og/service.js';
import { clientGoneSignal } from '../client-gone.js';
import { documentOnly } from '../schemas/common.js';
import { ogSchema, ogSiteRootSchema } from '../schemas/sites.js';
import { recordTimings } from '../timings.js';

/**
 * GET /og/<site id>/<path>?<query> (issue 30 §1): the card of `<origin>/<path>?<query>`, with no
 * key: the site id binds the origin, so the page path is all a request chooses. The path is taken
 * from the raw request target, as sent, so the router's decoding cannot turn `%2f` into a
 * separator the origin check never saw (og/target.ts decides what stays on the origin).
 */
export function registerOgRoute(app: FastifyInstance, deps: { og: OgService }): void {
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const started = performance.now();
    const siteId = (req.params as { siteId: string }).siteId;
    const raw = req.raw.url ?? '';
    const prefix = `/og/${siteId}`;
    const rest = raw.startsWith(prefix) ? raw.slice(prefix.length) : '/';
    const inm = req.headers['if-none-match'];
    const ua = req.headers['user-agent'];
    const result = await deps.og.answer(siteId, rest, typeof ua === 'string' ? ua : undefined, {
      ...(typeof inm === 'string' ? { ifNoneMatch: inm } : {}),
      signal: clientGoneSignal(req, reply),
    });
    reply.header('Cache-Control', `public, max-age=${result.maxAge}`);
    reply.header('ETag', `"${result.etag}"`);
    // The size depends on which crawler asks: a shared cache must keep one answer per agent.
    reply.header('Vary', 'User-Agent');
    if (result.fallback !== null) reply.header('X-Cardshot-Fallback', result.fallback);
    recordTimings(req, reply, {
      phases: { ...result.timings, total: performance.now() - started },
      notes: result.cache ? { cache: result.cache } : {},
      cache: result.cache ?? null,
    });
    if (result.kind === 'not-modified') return reply.code(304).send();
    reply.type(result.contentType);
    return reply.code(200).send(result.body);
  };
  app.get('/og/:siteId', documentOnly(ogSiteRootSchema), handler);
  app.get('/og/:siteId/*', documentOnly(ogSchema), handler);
}
