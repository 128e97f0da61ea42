/**
 * What the sites area stores: an account's sites (migration 011-sites), read through the
 * service's one kysely instance on SQLite or PostgreSQL. Another account's site reads as
 * missing everywhere except `findSite`, which `/og` uses: there the site id alone names it.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Tables } from '../storage/tables.js';

/** Where each card field is read from: `|`-separated sources tried in order; null: not drawn. */
export interface FieldMapping {
  title: string;
  subtitle: string | null;
  brand: string | null;
  imageUrl: string | null;
}

/** The card a page that cannot be read gets. */
export interface Fallback {
  title: string;
  subtitle?: string;
}

export type RenderMode = 'fetch' | 'browser';

export interface SiteRecord {
  /** `site_…` */
  id: string;
  accountId: string;
  name: string;
  /** Normalised origins (`https://blog.example.com`), the first being where paths are read. */
  origins: string[];
  template: string;
  /** `none`: the template's own look; null: the account's theme. */
  theme: string | null;
  fields: FieldMapping;
  fallback: Fallback;
  refreshSeconds: number;
  render: RenderMode;
  /** Bumped by every change and every whole-site purge: cached cards are keyed with it. */
  version: number;
  createdAt: number;
  updatedAt: number;
}

export interface SiteStore {
  insertSite(site: SiteRecord): Promise<void>;
  /** The account's sites, oldest first. */
  listSites(accountId: string): Promise<SiteRecord[]>;
  /** The site if it belongs to `accountId`. */
  getSite(accountId: string, id: string): Promise<SiteRecord | undefined>;
  /** The site by id alone (`/og`, where the id is the credential). */
  findSite(id: string): Promise<SiteRecord | undefined>;
  countSites(accountId: string): Promise<number>;
  /** Replaces the site's settings (and version); false when the account has no such site. */
  updateSite(site: SiteRecord): Promise<boolean>;
  /** Adds one to the version; the new record, or undefined when the account has no such site. */
  bumpVersion(accountId: string, id: string, at: number): Promise<SiteRecord | undefined>;
  deleteSite(accountId: string, id: string): Promise<boolean>;
}

/** The sites table as kysely sees it. */
export type SiteTables = {
  sites: {
    id: string;
    account_id: string;
    name: string;
    origins: string;
    template: string;
    theme: string | null;
    fields: string;
    fallback: string;
    refresh_seconds: number;
    render: string;
    version: number;
    created_at: number | string;
    updated_at: number | string;
  };
};

/** The site store over the service's database. */
export function createSiteStore(base: Kysely<Tables>): SiteStore {
  const db = base.withTables<SiteTables>() as unknown as Kysely<SiteTables>;
  const one = async (id: string, accountId?: string) => {
    let q = db.selectFrom('sites').selectAll().where('id', '=', id);
    if (accountId !== undefined) q = q.where('account_id', '=', accountId);
    const r = await q.executeTakeFirst();
    return r && toSite(r);
  };
  return {
    async insertSite(s) {
      await db.insertInto('sites').values(fromSite(s)).execute();
    },
    async listSites(accountId) {
      const rows = await db
        .selectFrom('sites')
        .selectAll()
        .where('account_id', '=', accountId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toSite);
    },
    getSite: (accountId, id) => one(id, accountId),
    findSite: (id) => one(id),
    async countSites(accountId) {
      const r = await db
        .selectFrom('sites')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    async updateSite(s) {
      const { id: _id, account_id: _a, created_at: _c, ...changes } = fromSite(s);
      const r = await db
        .updateTable('sites')
        .set(changes)
        .where('id', '=', s.id)
        .where('account_id', '=', s.accountId)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    async bumpVersion(accountId, id, at) {
      await db
        .updateTable('sites')
        .set((eb) => ({ version: eb('version', '+', 1), updated_at: at }))
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .execute();
      return one(id, accountId);
    },
    async deleteSite(accountId, id) {
      const r = await db
        .deleteFrom('sites')
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
  };
}

function toSite(r: Selectable<SiteTables['sites']>): SiteRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    origins: JSON.parse(r.origins) as string[],
    template: r.template,
    theme: r.theme,
    fields: JSON.parse(r.fields) as FieldMapping,
    fallback: JSON.parse(r.fallback) as Fallback,
    refreshSeconds: Number(r.refresh_seconds),
    render: r.render === 'browser' ? 'browser' : 'fetch',
    version: Number(r.version),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

function fromSite(s: SiteRecord): SiteTables['sites'] {
  return {
    id: s.id,
    account_id: s.accountId,
    name: s.name,
    origins: JSON.stringify(s.origins),
    template: s.template,
    theme: s.theme,
    fields: JSON.stringify(s.fields),
    fallback: JSON.stringify(s.fallback),
    refresh_seconds: s.refreshSeconds,
    render: s.render,
    version: s.version,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}
