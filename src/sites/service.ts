/**
 * The sites of an account (issue 30 §1): create, list, read, change, delete, and the whole-site
 * purge. A site binds its origins to an id, so `/og/<id>/…` needs no key: which pages it may read
 * is decided here, once, when the owner registers them (and checked again on every read by the
 * URL guard). Another account's site reads as missing.
 */
import { randomBytes } from 'node:crypto';
import { assertTemplateAllowed, type Plan } from '../auth/plans.js';
import { AppError } from '../errors.js';
import { type Clock, systemClock } from '../lib/clock.js';
import { type UrlGuard, UrlRefusedError } from '../net/url-guard.js';
import type { TemplateRegistry } from '../render/template/types.js';
import { DEFAULT_FIELDS, DEFAULT_REFRESH_SECONDS, parseSiteInput, type SiteInput } from './input.js';
import type { SiteRecord, SiteStore } from './store.js';

/** A site as the API answers it. */
export interface SiteView {
  id: string;
  name: string;
  origins: string[];
  template: string;
  /** `account`: the account's brand theme; `none`: the template's own look. */
  theme: 'account' | 'none';
  fields: SiteRecord['fields'];
  fallback: SiteRecord['fallback'];
  refreshSeconds: number;
  render: SiteRecord['render'];
  /** Where the site's pages' cards are: add the page's path. */
  ogUrl: string;
  createdAt: string;
}

/** Who manages sites. */
export interface SiteCaller {
  accountId: string;
  plan: Plan;
}

export interface SiteService {
  create(caller: SiteCaller, body: unknown): Promise<SiteView>;
  list(accountId: string): Promise<SiteView[]>;
  get(accountId: string, id: string): Promise<SiteRecord>;
  view(site: SiteRecord): SiteView;
  update(caller: SiteCaller, id: string, body: unknown): Promise<SiteView>;
  remove(accountId: string, id: string): Promise<void>;
  /** Every cached card of the site stops matching (on every node: the version is in the keys). */
  purgeAll(accountId: string, id: string): Promise<SiteRecord>;
}

export interface SiteServiceDeps {
  store: SiteStore;
  registry: () => Pick<TemplateRegistry, 'get' | 'names'>;
  guard: UrlGuard;
  /** This server's public origin, for `ogUrl`. */
  publicOrigin: () => string;
  maxPerAccount: number;
  /** Told about every change, so this node's caches forget the site at once. */
  onChange?: (id: string) => void;
  clock?: Clock;
}

/** Creates the service. */
export function createSiteService(deps: SiteServiceDeps): SiteService {
  const clock = deps.clock ?? systemClock;
  const view = (s: SiteRecord): SiteView => ({
    id: s.id,
    name: s.name,
    origins: s.origins,
    template: s.template,
    theme: s.theme === 'none' ? 'none' : 'account',
    fields: s.fields,
    fallback: s.fallback,
    refreshSeconds: s.refreshSeconds,
    render: s.render,
    ogUrl: `${deps.publicOrigin()}/og/${s.id}/`,
    createdAt: new Date(s.createdAt).toISOString(),
  });
  const get = async (accountId: string, id: string) => {
    const site =
      typeof id === 'string' && id.length <= 64 ? await deps.store.getSite(accountId, id) : undefined;
    if (!site) throw new AppError('not_found', 'No such site on this account');
    return site;
  };
  /** Template (400, 403) and origins (400 for a private one): what a change must pass. */
  const check = async (caller: SiteCaller, input: SiteInput) => {
    if (input.template !== undefined) {
      const registry = deps.registry();
      if (!registry.get(input.template)) {
        throw new AppError('bad_request', `template must be one of: ${registry.names().join(', ')}`);
      }
      assertTemplateAllowed(caller.plan, input.template);
    }
    for (const [i, origin] of (input.origins ?? []).entries()) await checkOrigin(deps.guard, origin, i);
  };

  return {
    async create(caller, body) {
      const input = parseSiteInput(body, false);
      await check(caller, input);
      if ((await deps.store.countSites(caller.accountId)) >= deps.maxPerAccount) {
        throw new AppError(
          'conflict',
          `This account has ${deps.maxPerAccount} sites, the most it may have; delete one first`,
        );
      }
      const origins = input.origins ?? [];
      const now = clock.now();
      const site: SiteRecord = {
        id: `site_${randomBytes(10).toString('hex')}`,
        accountId: caller.accountId,
        name: input.name ?? new URL(origins[0] ?? 'http://site').host,
        origins,
        template: input.template ?? '',
        theme: input.theme ?? null,
        fields: { ...DEFAULT_FIELDS, ...input.fields },
        fallback: input.fallback ?? { title: input.name ?? new URL(origins[0] ?? 'http://site').host },
        refreshSeconds: input.refreshSeconds ?? DEFAULT_REFRESH_SECONDS,
        render: input.render ?? 'fetch',
        version: 1,
        createdAt: now,
        updatedAt: now,
      };
      await deps.store.insertSite(site);
      return view(site);
    },
    async list(accountId) {
      return (await deps.store.listSites(accountId)).map(view);
    },
    get,
    view,
    async update(caller, id, body) {
      const input = parseSiteInput(body, true);
      const site = await get(caller.accountId, id);
      await check(caller, input);
      const next: SiteRecord = {
        ...site,
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.origins !== undefined ? { origins: input.origins } : {}),
        ...(input.template !== undefined ? { template: input.template } : {}),
        ...(input.theme !== undefined ? { theme: input.theme } : {}),
        fields: { ...site.fields, ...input.fields },
        ...(input.fallback !== undefined ? { fallback: input.fallback } : {}),
        ...(input.refreshSeconds !== undefined ? { refreshSeconds: input.refreshSeconds } : {}),
        ...(input.render !== undefined ? { render: input.render } : {}),
        // A changed template, mapping or fallback draws different cards: the old ones go.
        version: site.version + 1,
        updatedAt: clock.now(),
      };
      if (!(await deps.store.updateSite(next)))
        throw new AppError('not_found', 'No such site on this account');
      deps.onChange?.(id);
      return view(next);
    },
    async remove(accountId, id) {
      if (!(await deps.store.deleteSite(accountId, id))) {
        throw new AppError('not_found', 'No such site on this account');
      }
      deps.onChange?.(id);
    },
    async purgeAll(accountId, id) {
      await get(accountId, id);
      const site = await deps.store.bumpVersion(accountId, id, clock.now());
      if (!site) throw new AppError('not_found', 'No such site on this account');
      deps.onChange?.(id);
      return site;
    },
  };
}

/**
 * A private origin is refused when registered (400), in the guard's generic words: the reason
 * (which address) is for the log. A name that does not resolve yet is accepted (a site is often
 * registered before it is live); every read goes through the guard again anyway.
 */
async function checkOrigin(guard: UrlGuard, origin: string, i: number): Promise<void> {
  try {
    await guard.check(`${origin}/`);
  } catch (err) {
    if (!(err instanceof UrlRefusedError) || err.reason === 'dns') return;
    throw new AppError(
      'bad_request',
      `origins[${i}] is not a public web address (private, loopback and internal hosts cannot be read)`,
      { detail: err.message },
    );
  }
}
