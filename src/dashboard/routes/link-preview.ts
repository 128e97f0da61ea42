import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Plan } from '../../auth/plans.js';
import { siteTag } from '../../client/sites.js';
import { AppError, isAppError } from '../../errors.js';
import { STATUS } from '../../http/errors.js';
import { budgetOf, RATE_LIMITED } from '../../ratelimit/budgets.js';
import type { Sites } from '../../sites/module.js';
import type { UnfurlReport } from '../../sites/unfurl/types.js';
import { baseUrl, type DashboardDeps, sendPage, sessionOf } from '../context.js';
import { cardSuggester, type SuggestedCard } from '../link-card.js';
import { linkPreviewPage, type SiteFix } from '../views/link-preview.js';
import { playgroundContext } from './playground.js';

type UrlQuery = { Querystring: { url?: string } };
type ImageQuery = { Querystring: { u?: string; s?: string } };

/**
 * The Link preview page (issue 30 §2): a GET form (works without script) that runs the unfurl
 * check as the signed-in account, counted against its rate limit and its share of the unfurl
 * queue like the API, and draws each network's card. The cards' images come through
 * /dashboard/link-preview/image, which fetches only URLs this page signed for this account.
 */
export function registerLinkPreviewPages(scope: FastifyInstance, deps: DashboardDeps): void {
  const page = { config: { dashboard: 'page' as const } };
  const { secrets } = deps.accounts;
  const context = playgroundContext(deps);
  const sites = (): Sites => {
    if (!deps.sites) throw new AppError('not_found', 'This server does not check links.');
    return deps.sites;
  };
  /** Binds an image URL to the account that was shown it, so the proxy fetches nothing else. */
  const imageSig = (accountId: string, url: string) =>
    secrets.hashToken(`link-preview-image\n${accountId}\n${url}`).slice(0, 32);

  scope.get<UrlQuery>('/link-preview', page, async (req, reply) => {
    const { account, plan, keys, now } = await context(req);
    const url = typeof req.query.url === 'string' ? req.query.url.trim() : '';
    let report: UnfurlReport | null = null;
    let error: string | null = null;
    let status = 200;
    let card: SuggestedCard | null = null;
    let siteFix: SiteFix | null = null;
    if (url !== '') {
      try {
        await admit(deps, account.id, plan);
        const suggest = cardSuggester({
          plan,
          key: keys[0],
          secrets,
          registry: deps.registry,
          baseUrl: baseUrl(req, deps.config),
          now,
        });
        report = await sites().unfurl.check(url, {
          accountId: account.id,
          variant: `dashboard:${keys[0]?.id ?? ''}`,
          suggestImage: (title) => suggest(title)?.ogUrl ?? 'https://example.com/og/card.png',
        });
        deps.usage.record(account.id, 'unfurl');
        card = suggest(report.page.title ?? report.page.siteName ?? new URL(report.url).host);
        siteFix = await siteFixFor(deps, account.id, report, baseUrl(req, deps.config));
      } catch (err) {
        if (!isAppError(err, 'bad_request', 'rate_limited', 'unavailable')) throw err;
        error = err.message;
        status = STATUS[err.code];
      }
    }
    const imageSrc = (u: string) =>
      `/dashboard/link-preview/image?u=${encodeURIComponent(u)}&s=${imageSig(account.id, u)}`;
    const body = linkPreviewPage({
      account,
      csrf: req.dash!.csrf,
      url,
      report,
      error,
      imageSrc,
      card,
      siteFix,
    });
    return sendPage(reply, body, status);
  });

  scope.get<ImageQuery>('/link-preview/image', page, async (req, reply) => {
    const { account } = sessionOf(req);
    const u = typeof req.query.u === 'string' ? req.query.u : '';
    const given = Buffer.from(typeof req.query.s === 'string' ? req.query.s : '');
    const want = Buffer.from(imageSig(account.id, u));
    if (given.length !== want.length || !timingSafeEqual(given, want)) {
      throw new AppError('not_found', 'No such preview image');
    }
    const img = await sites().previewImages.fetch(u, account.id);
    reply.header('Cache-Control', 'private, max-age=300');
    return reply.type(img.contentType).send(img.body);
  });
}

/**
 * The og:image tag of the checked page from one of the account's sites whose origin it is on
 * (issue 30 §2: "Fix: the og:image tag for the page from a site"): the page as asked, else
 * where its redirects ended.
 */
async function siteFixFor(
  deps: DashboardDeps,
  accountId: string,
  report: UnfurlReport,
  origin: string,
): Promise<SiteFix | null> {
  const cards = deps.sites?.cards;
  if (!cards) return null;
  const sites = await cards.sites.list(accountId);
  for (const url of [report.url, report.page.finalUrl]) {
    if (url === null) continue;
    const pageOrigin = URL.canParse(url) ? new URL(url).origin : '';
    const site = sites.find((s) => s.origins.includes(pageOrigin));
    if (site) {
      const tag = siteTag({ ...site, ogUrl: `${origin}/og/${site.id}/` }, url);
      return { siteId: site.id, siteName: site.name, tag };
    }
  }
  return null;
}

/** Counts a check against the account's request budget, like GET /unfurl. */
async function admit(deps: DashboardDeps, accountId: string, plan: Plan | undefined): Promise<void> {
  if (!plan)
    throw new AppError('bad_request', 'Your plan is not configured on this server; contact its operator');
  const b = budgetOf({ accountId, plan, spends: 'account' });
  const d = await deps.limiter.consume(b.key, b.limit, b.windowMs);
  if (!d.allowed) {
    deps.usage.record(accountId, 'rate_limited');
    throw new AppError('rate_limited', RATE_LIMITED, { retryAfter: d.resetMs / 1000 });
  }
}
