import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Plan } from '../../auth/plans.js';
import { siteCardUrl, siteTag } from '../../client/sites.js';
import { AppError, isAppError } from '../../errors.js';
import { STATUS } from '../../http/errors.js';
import { systemClock } from '../../lib/clock.js';
import type { SiteCards } from '../../sites/module.js';
import { parseWarmInput, sitemapPaths } from '../../sites/warm.js';
import { baseUrl, type DashboardDeps, field, seeOther, sendPage, sessionOf } from '../context.js';
import { deleteSitePage, type PagePreview, sitePage } from '../views/site.js';
import { type SiteForm, sitesPage } from '../views/sites.js';
import { playgroundContext } from './playground.js';

const NOTICES: Record<string, string> = {
  created: 'The site is registered. Add the tag below to its layout, with each page’s own path.',
  saved: 'Saved. Cards already made are drawn again as crawlers ask for them.',
  purged: 'Purged: the next crawler reads the page again.',
  'purged-all': 'Purged every page of the site: each is read again when a crawler next asks.',
  deleted: 'The site is deleted; its /og URLs answer 404 now.',
};
const JOB_ID = /^job_[A-Za-z0-9_-]{16}$/;

type Params = { Params: { id: string } };
type SiteQuery = { Querystring: { path?: string; notice?: string; job?: string } };

/**
 * The Sites pages (issue 30 §1): the account's sites, register one, and per site its tag and a
 * page's card, purge, warm with the job's progress, settings and delete. Everything goes
 * through the sites service with the signed-in account (another account's site is missing),
 * and warm submits the same job as POST /sites/:id/warm.
 */
export function registerSitePages(scope: FastifyInstance, deps: DashboardDeps): void {
  const page = { config: { dashboard: 'page' as const } };
  const clock = deps.clock ?? systemClock;
  const context = playgroundContext(deps);
  const cards = (): SiteCards => {
    const c = deps.sites?.cards;
    if (!c) throw new AppError('not_found', 'This server does not serve site cards.');
    return c;
  };
  const callerOf = async (req: FastifyRequest) => {
    const { account, plan } = await context(req);
    if (!plan)
      throw new AppError('bad_request', 'Your plan is not configured on this server; contact its operator');
    return { account, plan };
  };
  const templatesFor = (plan: Plan | undefined) =>
    deps.registry.names().filter((t) => !plan || plan.templates === '*' || plan.templates.includes(t));

  const listPage = async (
    req: FastifyRequest,
    reply: FastifyReply,
    extra: { notice?: string | null; form?: SiteForm },
    status = 200,
  ) => {
    const { account, plan } = await context(req);
    const sites = await cards().sites.list(account.id);
    const body = sitesPage({
      account,
      csrf: req.dash!.csrf,
      sites,
      templates: templatesFor(plan),
      now: clock.now(),
      ...extra,
    });
    return sendPage(reply, body, status);
  };

  const onePage = async (
    req: FastifyRequest<Params & SiteQuery>,
    reply: FastifyReply,
    extra: { error?: string | null; form?: SiteForm } = {},
    status = 200,
  ) => {
    const { account, plan } = await context(req);
    const { sites } = cards();
    const site = sites.view(await sites.get(account.id, req.params.id));
    const path =
      typeof req.query.path === 'string' && req.query.path.trim() !== '' ? req.query.path.trim() : '/';
    const notice = req.query.notice;
    const warm =
      JOB_ID.test(req.query.job ?? '') && deps.jobs
        ? await deps.jobs.service.get(account.id, req.query.job!).catch(() => null)
        : null;
    const body = sitePage({
      account,
      csrf: req.dash!.csrf,
      site,
      // The address this dashboard was reached at (or CARDSHOT_PUBLIC_URL), as the playground's tags.
      preview: previewOf({ ...site, ogUrl: `${baseUrl(req, deps.config)}/og/${site.id}/` }, path),
      templates: templatesFor(plan),
      warm,
      warmMaxPages: cards().warmMaxPages,
      notice: notice !== undefined && Object.hasOwn(NOTICES, notice) ? NOTICES[notice]! : null,
      ...extra,
    });
    return sendPage(reply, body, status);
  };

  scope.get<{ Querystring: { notice?: string } }>('/sites', page, async (req, reply) => {
    const name = req.query.notice;
    return listPage(req, reply, {
      notice: name !== undefined && Object.hasOwn(NOTICES, name) ? NOTICES[name]! : null,
    });
  });

  scope.post('/sites', page, async (req, reply) => {
    const form = formFrom(req.body);
    try {
      const caller = await callerOf(req);
      const site = await cards().sites.create(
        { accountId: caller.account.id, plan: caller.plan },
        bodyOf(form, false),
      );
      req.log.info({ account: caller.account.id, site: site.id }, 'dashboard: site registered');
      return seeOther(reply, `/dashboard/sites/${site.id}?notice=created`);
    } catch (err) {
      const shown = formError(err);
      if (shown === null) throw err;
      return listPage(req, reply, { form: { ...form, error: shown.message } }, shown.status);
    }
  });

  scope.get<Params & SiteQuery>('/sites/:id', page, async (req, reply) => onePage(req, reply));

  scope.post<Params & SiteQuery>('/sites/:id', page, async (req, reply) => {
    const form = formFrom(req.body);
    try {
      const caller = await callerOf(req);
      await cards().sites.update(
        { accountId: caller.account.id, plan: caller.plan },
        req.params.id,
        bodyOf(form, true),
      );
      return seeOther(reply, `/dashboard/sites/${req.params.id}?notice=saved`);
    } catch (err) {
      const shown = formError(err);
      if (shown === null) throw err;
      return onePage(req, reply, { form: { ...form, error: shown.message } }, shown.status);
    }
  });

  scope.post<Params & SiteQuery>('/sites/:id/purge', page, async (req, reply) => {
    const { account } = sessionOf(req);
    const { sites, og } = cards();
    const path = field(req.body, 'path');
    if (path === '') {
      await sites.purgeAll(account.id, req.params.id);
      return seeOther(reply, `/dashboard/sites/${req.params.id}?notice=purged-all`);
    }
    const site = await sites.get(account.id, req.params.id);
    if (!path.startsWith('/') || path.length > 2048) {
      return onePage(req, reply, { error: 'The path to purge starts with / (such as /blog/post-1).' }, 400);
    }
    await og.purgePage(site, path);
    return seeOther(reply, `/dashboard/sites/${site.id}?notice=purged&path=${encodeURIComponent(path)}`);
  });

  scope.post<Params & SiteQuery>('/sites/:id/warm', page, async (req, reply) => {
    const { account, plan } = await callerOf(req);
    const c = cards();
    if (!deps.jobs) throw new AppError('not_found', 'This server does not run jobs.');
    const site = await c.sites.get(account.id, req.params.id);
    try {
      const sitemap = field(req.body, 'sitemap');
      const limit = field(req.body, 'limit');
      const input = parseWarmInput(
        { ...(sitemap ? { sitemap } : {}), ...(limit ? { limit: Number(limit) } : {}) },
        c.warmMaxPages,
      );
      const paths = await sitemapPaths(site, input.sitemap, input.limit, c.sitemap);
      if (paths.length === 0)
        throw new AppError('unprocessable', 'The sitemap lists no pages on the site’s origins.');
      const { job } = await deps.jobs.service.submit(
        { accountId: account.id, plan },
        { items: paths.map((path) => ({ site: site.id, path })), source: 'body' },
      );
      req.log.info({ account: account.id, site: site.id, job: job.id }, 'dashboard: site warm submitted');
      return seeOther(reply, `/dashboard/sites/${site.id}?job=${job.id}#warm`);
    } catch (err) {
      if (
        !isAppError(
          err,
          'bad_request',
          'unprocessable',
          'forbidden',
          'rate_limited',
          'bad_gateway',
          'gateway_timeout',
        )
      )
        throw err;
      return onePage(req, reply, { error: err.message }, STATUS[err.code]);
    }
  });

  scope.get<Params>('/sites/:id/delete', page, async (req, reply) => {
    const { account } = sessionOf(req);
    const { sites } = cards();
    const site = sites.view(await sites.get(account.id, req.params.id));
    return sendPage(reply, deleteSitePage({ account, csrf: req.dash!.csrf, site }));
  });

  scope.post<Params>('/sites/:id/delete', page, async (req, reply) => {
    const { account } = sessionOf(req);
    await cards().sites.remove(account.id, req.params.id);
    req.log.info({ account: account.id, site: req.params.id }, 'dashboard: site deleted');
    return seeOther(reply, '/dashboard/sites?notice=deleted');
  });
}

/** The tag and the card of one page, or why the path cannot be one of the site's. */
function previewOf(site: Parameters<typeof siteTag>[0] & { id: string }, path: string): PagePreview {
  try {
    const url = siteCardUrl(site, path);
    // The image is asked of this server as the page sees it (the public URL may be a CDN's).
    const imageSrc = `/og/${site.id}/${url.slice(site.ogUrl.replace(/\/?$/, '/').length)}`;
    return { path, tag: siteTag(site, path), imageSrc };
  } catch (err) {
    return { path, error: `${(err as Error).message}.` };
  }
}

function formFrom(body: unknown): SiteForm {
  return {
    origins: field(body, 'origins'),
    template: field(body, 'template'),
    theme: field(body, 'theme'),
    fallbackTitle: field(body, 'fallbackTitle'),
    fallbackSubtitle: field(body, 'fallbackSubtitle'),
    refreshSeconds: field(body, 'refreshSeconds'),
    render: field(body, 'render') === 'browser' ? 'browser' : 'fetch',
    name: field(body, 'name'),
  };
}

/** The API's body from the form: what the API validates, so the messages are the API's. */
function bodyOf(f: SiteForm, update: boolean): Record<string, unknown> {
  const origins = f.origins.split(/[\s,]+/).filter(Boolean);
  return {
    ...(origins.length || !update ? { origins } : {}),
    ...(f.template || !update ? { template: f.template } : {}),
    ...(f.theme ? { theme: f.theme } : {}),
    ...(f.fallbackTitle
      ? {
          fallback: {
            title: f.fallbackTitle,
            ...(f.fallbackSubtitle ? { subtitle: f.fallbackSubtitle } : {}),
          },
        }
      : {}),
    ...(/^\d+$/.test(f.refreshSeconds) ? { refreshSeconds: Number(f.refreshSeconds) } : {}),
    render: f.render,
    ...(f.name ? { name: f.name } : {}),
  };
}

/** A refusal the form shows in its own words (first letter up, a full stop), or null. */
function formError(err: unknown): { message: string; status: number } | null {
  if (!isAppError(err, 'bad_request', 'forbidden', 'conflict')) return null;
  const m = err.message;
  return {
    message: `${m[0]!.toUpperCase()}${m.slice(1)}${/[.!?]$/.test(m) ? '' : '.'}`,
    status: STATUS[err.code],
  };
}
