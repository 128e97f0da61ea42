import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { baseUrl } from '../../dashboard/context.js';
import { AppError } from '../../errors.js';
import type { Jobs } from '../../jobs/module.js';
import { submittedView } from '../../jobs/view.js';
import type { SiteCards } from '../../sites/module.js';
import { pageUrl } from '../../sites/og/target.js';
import { parseWarmInput, sitemapPaths } from '../../sites/warm.js';
import { documentOnly } from '../schemas/common.js';
import * as schemas from '../schemas/sites.js';
import type { HttpConfig } from '../settings.js';

/** Action routes whose body is optional: an empty one with a JSON Content-Type is accepted. */
const BODYLESS = { bodyless: true };

/**
 * The sites of the caller's account (issue 30 §1): authenticated like /webhooks (access.ts
 * protects the paths), counted against the account's rate limit, another account's site read
 * as missing (404). Validation comes before the rate limit (401 → 400 → 429).
 */
export function registerSiteRoutes(
  app: FastifyInstance,
  deps: { cards: SiteCards; jobs?: Jobs | null; config: Pick<HttpConfig, 'publicUrl'> },
): void {
  const { sites, og } = deps.cards;
  for (const schema of schemas.SITE_SCHEMAS) app.addSchema(schema);
  const admit = (req: FastifyRequest, reply: FastifyReply) => app.access.admit(req, reply, () => {});
  const id = (req: FastifyRequest) => (req.params as { id: string }).id;

  app.post('/sites', documentOnly(schemas.createSite), async (req, reply) => {
    const auth = await admit(req, reply);
    const site = await sites.create(auth, req.body);
    reply.code(201).header('Cache-Control', 'no-store').header('Location', `/sites/${site.id}`);
    return { site };
  });

  app.get('/sites', documentOnly(schemas.listSites), async (req, reply) => {
    const auth = await admit(req, reply);
    reply.header('Cache-Control', 'no-store');
    return { sites: await sites.list(auth.accountId) };
  });

  app.get('/sites/:id', documentOnly(schemas.getSite), async (req, reply) => {
    const auth = await admit(req, reply);
    reply.header('Cache-Control', 'no-store');
    return { site: sites.view(await sites.get(auth.accountId, id(req))) };
  });

  app.patch('/sites/:id', documentOnly(schemas.updateSite), async (req, reply) => {
    const auth = await admit(req, reply);
    reply.header('Cache-Control', 'no-store');
    return { site: await sites.update(auth, id(req), req.body) };
  });

  app.delete('/sites/:id', { ...documentOnly(schemas.deleteSite), config: BODYLESS }, async (req, reply) => {
    const auth = await admit(req, reply);
    await sites.remove(auth.accountId, id(req));
    return reply.code(204).send();
  });

  app.post(
    '/sites/:id/purge',
    { ...documentOnly(schemas.purgeSite), config: BODYLESS },
    async (req, reply) => {
      const path = purgePath(req.body);
      const auth = await admit(req, reply);
      reply.header('Cache-Control', 'no-store');
      if (path === undefined) {
        await sites.purgeAll(auth.accountId, id(req));
        // Every page at once (the site's cache version moves): nothing is listed, so no count.
        return { purged: 'site' };
      }
      const site = await sites.get(auth.accountId, id(req));
      const { before } = await sites.purgePage(auth.accountId, site.id, pageUrl(site.origins[0] ?? '', path));
      // The old entry is dropped here and from the shared tier at once; other nodes stop matching
      // it when they next read the site (its purge count is in the page's cache key).
      await og.purgePage(before, path);
      return { purged: 'page', path };
    },
  );

  app.post('/sites/:id/warm', { ...documentOnly(schemas.warmSite), config: BODYLESS }, async (req, reply) => {
    const input = parseWarmInput(req.body, deps.cards.warmMaxPages);
    const auth = await admit(req, reply);
    const jobs = deps.jobs;
    if (!jobs) throw new AppError('unavailable', 'Jobs are not served by this node', { retryAfter: 5 });
    const site = await sites.get(auth.accountId, id(req));
    const paths = await sitemapPaths(site, input.sitemap, input.limit, deps.cards.sitemap);
    if (paths.length === 0) {
      throw new AppError('unprocessable', "The sitemap lists no pages on the site's origins");
    }
    const { job } = await jobs.service.submit(
      { accountId: auth.accountId, plan: auth.plan },
      { items: paths.map((path) => ({ site: site.id, path })), source: 'body' },
    );
    const view = submittedView(job, baseUrl(req, deps.config));
    reply.header('Location', view.statusUrl).header('Cache-Control', 'no-store');
    return reply.code(202).send({ job: view });
  });
}

/** `{"path": "/blog/post-1"}` (one page) or nothing (the whole site). */
function purgePath(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body !== 'object' || Array.isArray(body))
    throw bad('Request body must be a JSON object: {"path"?: "/…"}');
  const r = body as Record<string, unknown>;
  const stray = Object.keys(r).find((k) => k !== 'path');
  if (stray !== undefined) throw bad(`Unknown field ${JSON.stringify(stray.slice(0, 40))}. Allowed: path`);
  if (r.path === undefined || r.path === null) return undefined;
  if (typeof r.path !== 'string' || !r.path.startsWith('/') || r.path.length > 2048) {
    throw bad('path must be a page path on the site, starting with / (such as "/blog/post-1")');
  }
  return r.path;
}

function bad(message: string): AppError {
  return new AppError('bad_request', message);
}
