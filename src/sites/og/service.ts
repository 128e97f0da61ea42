/**
 * `GET /og/<site>/<path>` without a key (issue 30 §1): the site named by the id binds the
 * origin, so the route reads only that origin's pages. Site → page (pages.ts: cached, else read
 * on the site's budget) → card request (the mapping, the page's overrides, the crawler's size;
 * the site's fallback when the page gave nothing) → the one render command, as the site's
 * account (its plan, its theme, its cache scope), counted in the account's usage.
 */
import type { Plans } from '../../auth/plans.js';
import { AppError, isAppError } from '../../errors.js';
import { type Clock, systemClock } from '../../lib/clock.js';
import { type CardRendered, type RenderCommand, usageKind } from '../../render/command.js';
import { parseTemplateRequest, type TemplateRequest } from '../../render/template/request.js';
import type { TemplateRegistry } from '../../render/template/types.js';
import type { Account, UsageKind } from '../../storage/store.js';
import type { SiteRecord, SiteStore } from '../store.js';
import { sizeForAgent } from './crawlers.js';
import type { PageCard } from './mapping.js';
import type { PageRead, SitePages } from './pages.js';
import { pageUrl } from './target.js';

/** A card answered at `/og`. */
export type OgAnswer = CardRendered & {
  /** HIT: the page and the card came from the cache; MISS: the page was read or the card drawn. */
  cache?: 'HIT' | 'MISS';
  /** Why the site's fallback card was drawn, or null. */
  fallback: string | null;
  /** Seconds a crawler may keep the answer. */
  maxAge: number;
};

export interface OgService {
  /** The card for `rest` (what follows `/og/<id>`, query included) as `userAgent` gets it. */
  answer(
    siteId: string,
    rest: string,
    userAgent: string | undefined,
    opts: { ifNoneMatch?: string; signal?: AbortSignal },
  ): Promise<OgAnswer>;
  /**
   * A warm job's item: the page read through the same path as `/og` (and its cache filled), the
   * card at the Open Graph size rendered as a `job` caller (the account's rate limit).
   */
  warm(accountId: string, siteId: string, path: string, signal: AbortSignal): Promise<OgAnswer>;
  /** Forgets one page of a site (every tier); its next request reads it again. */
  purgePage(site: SiteRecord, path: string): Promise<void>;
  /** Forgets the site on this node (it changed). */
  forget(siteId: string): void;
}

export interface OgServiceDeps {
  store: Pick<SiteStore, 'findSite'>;
  getAccount(id: string): Promise<Account | undefined>;
  plans: Plans;
  registry: () => TemplateRegistry;
  pages: SitePages;
  render: Pick<RenderCommand, 'card'>;
  usage: { record(accountId: string, kind: UsageKind): void };
  clock?: Clock;
}

/** Sites are looked up again after this long (a change on another node is seen within it). */
const SITE_TTL_MS = 5000;
const MAX_SITES_KEPT = 10_000;
const FALLBACK_MAX_AGE = 60;

export function createOgService(deps: OgServiceDeps): OgService {
  const clock = deps.clock ?? systemClock;
  const sites = new Map<string, { site: SiteRecord; account: Account; at: number }>();

  // Ids found missing, for as long as a found site is kept: a flood of made-up ids (the route
  // takes no key) costs one database lookup per id and 5 s, not one per request.
  const missing = new Map<string, number>();
  const siteOf = async (id: string) => {
    const kept = sites.get(id);
    if (kept && clock.now() - kept.at < SITE_TTL_MS) return kept;
    const gone = missing.get(id);
    if (gone !== undefined && clock.now() - gone < SITE_TTL_MS)
      throw new AppError('not_found', 'No such site');
    const site = /^site_[0-9a-f]{1,40}$/.test(id) ? await deps.store.findSite(id) : undefined;
    const account = site && (await deps.getAccount(site.accountId));
    if (!site || !account) {
      sites.delete(id);
      if (missing.size >= MAX_SITES_KEPT) missing.clear();
      missing.set(id, clock.now());
      throw new AppError('not_found', 'No such site');
    }
    missing.delete(id);
    if (sites.size >= MAX_SITES_KEPT) sites.clear();
    const entry = { site, account, at: clock.now() };
    sites.set(id, entry);
    return entry;
  };
  const planOf = (account: Account) => {
    const plan = deps.plans.get(account.plan);
    if (!plan) throw new AppError('internal', 'Internal server error', { detail: `no plan ${account.plan}` });
    return plan;
  };

  const draw = async (
    site: SiteRecord,
    account: Account,
    page: PageRead,
    size: (sizes: TemplateRequest['size'][]) => TemplateRequest['size'],
    how: { limit: 'none' | 'job'; ifNoneMatch?: string; signal?: AbortSignal },
  ): Promise<{ result: CardRendered; fallback: string | null }> => {
    const caller = { accountId: account.id, plan: planOf(account), limit: how.limit };
    const opts = {
      ...(how.ifNoneMatch !== undefined ? { ifNoneMatch: how.ifNoneMatch } : {}),
      ...(how.signal ? { signal: how.signal } : {}),
    };
    const registry = deps.registry();
    const allowed = (name: string) => caller.plan.templates === '*' || caller.plan.templates.includes(name);
    const fallbackReq = () => requestOf(registry, allowed, site, fallbackCard(site), size);
    if (page.card === null) {
      return { result: await deps.render.card(fallbackReq(), caller, opts), fallback: page.reason };
    }
    let req: TemplateRequest;
    try {
      req = requestOf(registry, allowed, site, page.card, size);
    } catch (err) {
      // Text the template cannot draw: the page's metadata is unusable, the site's card is not.
      if (!isAppError(err, 'bad_request')) throw err;
      return { result: await deps.render.card(fallbackReq(), caller, opts), fallback: 'unusable-metadata' };
    }
    try {
      return { result: await deps.render.card(req, caller, opts), fallback: null };
    } catch (err) {
      // An og:image that cannot be used costs the card its artwork, not the card itself.
      if (!isAppError(err, 'unprocessable') || req.imageUrl === undefined) throw err;
      const { imageUrl: _img, ...plain } = req;
      return { result: await deps.render.card(plain, caller, opts), fallback: null };
    }
  };

  return {
    async answer(siteId, rest, userAgent, opts) {
      const { site, account } = await siteOf(siteId);
      const url = pageUrl(site.origins[0] ?? '', rest);
      const readStarted = performance.now();
      const { page, cached } = await deps.pages.read(site, url, opts.signal ? { signal: opts.signal } : {});
      const pageMs = performance.now() - readStarted;
      const { result, fallback } = await draw(
        site,
        account,
        page,
        (sizes) => sizeForAgent(userAgent, sizes),
        {
          limit: 'none',
          ...opts,
        },
      );
      // The render spent no key's budget (the site's was spent on the read): usage is counted here.
      deps.usage.record(account.id, cached ? usageKind(result, 'template') : 'template');
      return {
        ...result,
        // The page's read (or its cache lookup) as a phase of Server-Timing.
        timings: { ...result.timings, page: pageMs },
        ...(cached ? {} : { cache: 'MISS' as const }),
        fallback,
        maxAge: fallback === null ? Math.min(site.refreshSeconds, 86_400) : FALLBACK_MAX_AGE,
      };
    },

    async warm(accountId, siteId, path, signal) {
      const { site, account } = await siteOf(siteId);
      if (site.accountId !== accountId) throw new AppError('not_found', 'No such site');
      const url = pageUrl(site.origins[0] ?? '', path);
      const { page } = await deps.pages.read(site, url, { signal, budget: false });
      const { result, fallback } = await draw(
        site,
        account,
        page,
        (sizes) => sizeForAgent(undefined, sizes),
        {
          limit: 'job',
          signal,
        },
      );
      return { ...result, fallback, maxAge: site.refreshSeconds };
    },

    purgePage: (site, path) => deps.pages.forget(site, pageUrl(site.origins[0] ?? '', path)),

    forget(siteId) {
      sites.delete(siteId);
      missing.delete(siteId);
    },
  };
}

/** The template drawn when the site's own is gone: `blog`, else the first the plan allows. */
function standIn(registry: TemplateRegistry, allowed: (template: string) => boolean) {
  if (allowed('blog') && registry.get('blog')) return registry.get('blog');
  return registry.list().find((t) => allowed(t.name));
}

/** The card request: the site's template (or the page's `cardshot:template`), at the crawler's size. */
export function requestOf(
  registry: TemplateRegistry,
  allowed: (template: string) => boolean,
  site: SiteRecord,
  card: PageCard,
  size: (sizes: TemplateRequest['size'][]) => TemplateRequest['size'],
): TemplateRequest {
  // An override naming no template of this server (or none of the plan's) is ignored: the page's
  // author may be wrong, the site's owner chose a template that exists.
  const override = card.template && allowed(card.template) ? registry.get(card.template) : undefined;
  // The site's own template may have gone since it was chosen (a template file removed, a plan
  // that no longer has it): a crawler still gets a card, in the built-in design.
  const own = allowed(site.template) ? registry.get(site.template) : undefined;
  const def = override ?? own ?? standIn(registry, allowed);
  if (!def) {
    throw new AppError('unavailable', 'This site has no template it may use; its owner must choose one', {
      retryAfter: 60,
      detail: `site ${site.id}: template ${site.template} is gone and the plan allows no other`,
    });
  }
  const theme =
    card.theme === 'none' || (card.theme !== 'account' && site.theme === 'none') ? 'none' : undefined;
  const body: Record<string, unknown> = {
    template: def.name,
    title: card.title,
    size: size([...def.sizes]),
    ...(card.subtitle && def.fields.subtitle ? { subtitle: card.subtitle } : {}),
    ...(card.brand && def.uses.brand ? { brand: card.brand } : {}),
    ...(card.imageUrl && def.uses.artwork ? { imageUrl: card.imageUrl } : {}),
    ...(theme ? { theme } : {}),
  };
  return parseTemplateRequest(body, 'body', undefined, registry);
}

function fallbackCard(site: SiteRecord): PageCard {
  return {
    title: site.fallback.title,
    ...(site.fallback.subtitle ? { subtitle: site.fallback.subtitle } : {}),
    brand: site.name,
  };
}
