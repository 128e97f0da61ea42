import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { assertScreenshotAllowed } from '../../auth/plans.js';
import { parseScreenshotRequest } from '../../render/screenshot/request.js';
import type { ScreenshotService, ShotResult } from '../../render/screenshot/service.js';
import type { UsageRecorder } from '../../usage/recorder.js';
import { pngCacheControl } from '../cache-control.js';
import { clientGoneSignal } from '../client-gone.js';
import { documentOnly } from '../schemas/common.js';
import { renderUrl } from '../schemas/render.js';
import { serverTiming } from '../server-timing.js';

/**
 * GET /render/url (spec §4.2): a PNG of the page's visible viewport, cached for the configured
 * TTL in our cache and downstream (`max-age` for browsers, `s-maxage` for CDNs), revalidated
 * with a strong ETag. HEAD answers with the same headers and no body.
 */
export function registerScreenshotRoutes(
  app: FastifyInstance,
  deps: { screenshots: ScreenshotService; usage: UsageRecorder },
): void {
  app.get('/render/url', documentOnly(renderUrl), async (req: FastifyRequest, reply: FastifyReply) => {
    const started = performance.now();
    const parsed = parseScreenshotRequest(req.query, deps.screenshots.viewports);
    // Plan (403) and rate limit (429) come after validation and before the cache or a capture.
    await app.access.admit(req, reply, (plan) => assertScreenshotAllowed(plan, parsed.viewport.name));
    const inm = req.headers['if-none-match'];
    // A client that hangs up stops its wait, and its capture when nobody else waits for it, so
    // it cannot hold a browser slot for the whole time-out.
    const result = await deps.screenshots.resolve(parsed, {
      ...(typeof inm === 'string' ? { ifNoneMatch: inm } : {}),
      signal: clientGoneSignal(req, reply),
      ...(req.auth ? { owner: { accountId: req.auth.accountId, plan: req.auth.plan } } : {}),
    });
    if (req.auth) {
      const kind =
        result.kind === 'not-modified' ? 'not_modified' : result.cache === 'HIT' ? 'cache_hit' : 'screenshot';
      deps.usage.record(req.auth.accountId, kind);
    }
    reply.header('Cache-Control', pngCacheControl(req.auth, result.maxAge, { age: result.age }));
    return send(reply, result, performance.now() - started);
  });
}

function send(reply: FastifyReply, result: ShotResult, totalMs: number): FastifyReply {
  reply.header('ETag', `"${result.etag}"`);
  reply.header('Age', String(result.age));
  reply.header('X-Cache', result.cache);
  reply.header('X-Target-Status', String(result.targetStatus));
  reply.header('Server-Timing', serverTiming({ ...result.timings, total: totalMs }, { cache: result.cache }));
  if (result.kind === 'not-modified') return reply.code(304).send();
  reply.type('image/png');
  return reply.code(200).send(result.body);
}
