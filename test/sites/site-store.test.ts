import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSiteStore, type SiteRecord, type SiteStore } from '../../src/sites/store.js';
import type { Account, Store } from '../../src/storage/store.js';
import { type StoreTarget, storeTargets } from '../helpers/store-targets.js';

/** The site store's contract (migration 011-sites), on a real SQLite file and on PostgreSQL. */
const targets = await storeTargets('sitestore');

let n = 0;
const T0 = 1_800_000_000_000;
const account = (): Account => ({
  id: `acc_${String(++n).padStart(16, '0')}`,
  name: 'Acme',
  email: `sites${n}-${Math.random()}@acme.test`,
  plan: 'pro',
  createdAt: T0 + n,
});
const site = (accountId: string, over: Partial<SiteRecord> = {}): SiteRecord => ({
  id: `site_${String(++n).padStart(20, '0')}`,
  accountId,
  name: 'Blog',
  origins: ['https://blog.example.com', 'https://www.example.com'],
  template: 'blog',
  theme: null,
  fields: { title: 'og:title|title', subtitle: null, brand: 'og:site_name|host', imageUrl: 'og:image' },
  fallback: { title: 'The blog', subtitle: 'Notes' },
  refreshSeconds: 86_400,
  render: 'fetch',
  version: 1,
  purged: {},
  createdAt: T0 + n,
  updatedAt: T0 + n,
  ...over,
});

describe.each(targets)('site store on $name', (target: StoreTarget) => {
  let store: Store;
  let sites: SiteStore;
  beforeAll(async () => {
    store = await target.open();
    sites = createSiteStore(store.db);
  });
  afterAll(async () => {
    await store?.close();
    await target.cleanup();
  });

  it('keeps a site whole, per account; another account reads it as missing', async () => {
    const a = account();
    const b = account();
    await store.createAccount(a);
    await store.createAccount(b);
    const s = site(a.id);
    await sites.insertSite(s);
    expect(await sites.getSite(a.id, s.id)).toEqual(s);
    expect(await sites.findSite(s.id)).toEqual(s);
    expect(await sites.getSite(b.id, s.id)).toBeUndefined();
    expect(await sites.listSites(b.id)).toEqual([]);
    expect(await sites.countSites(a.id)).toBe(1);
    expect(await sites.deleteSite(b.id, s.id)).toBe(false);
    expect(await sites.updateSite({ ...s, accountId: b.id, name: 'stolen' })).toBe(false);
  });

  it('updates, bumps the version, deletes, and goes with its account', async () => {
    const a = account();
    await store.createAccount(a);
    const s = site(a.id);
    const t = site(a.id);
    await sites.insertSite(s);
    await sites.insertSite(t);
    expect((await sites.listSites(a.id)).map((x) => x.id)).toEqual([s.id, t.id]);
    const changed = {
      ...s,
      theme: 'none',
      render: 'browser' as const,
      version: 2,
      purged: { 'https://blog.example.com/a?b=1': 2 },
      updatedAt: T0 + 99,
    };
    expect(await sites.updateSite(changed)).toBe(true);
    expect(await sites.getSite(a.id, s.id)).toEqual(changed);
    expect(await sites.bumpVersion(a.id, s.id, T0 + 100)).toMatchObject({ version: 3, purged: {} });
    expect(await sites.deleteSite(a.id, s.id)).toBe(true);
    expect(await sites.findSite(s.id)).toBeUndefined();
    await target.deleteAccount(a.id);
    expect(await sites.findSite(t.id)).toBeUndefined();
  });
});
