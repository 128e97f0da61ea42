import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '../../src/errors.js';
import { openStore } from '../../src/storage/open.js';
import type { Account, ApiKeyRecord, Store, ThemeRecord } from '../../src/storage/store.js';
import { storeTargets } from '../helpers/store-targets.js';

const targets = await storeTargets('store');

let n = 0;
const account = (over: Partial<Account> = {}): Account => ({
  id: `acc_${String(++n).padStart(16, '0')}`,
  name: 'Acme',
  email: `ops${n}@acme.test`,
  plan: 'pro',
  createdAt: 1_700_000_000_000 + n,
  ...over,
});
const key = (accountId: string, over: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  id: `key_${String(++n).padStart(16, '0')}`,
  accountId,
  name: 'k',
  environment: 'production',
  prefix: 'cs_production_Ab12',
  last4: 'wxyz',
  hash: String(n).padStart(64, 'a'),
  createdAt: 1_700_000_000_000 + n,
  lastUsedAt: null,
  expiresAt: null,
  revokedAt: null,
  replacedBy: null,
  ...over,
});

describe.each(targets)('store on $name', (target) => {
  let store: Store;
  beforeAll(async () => {
    store = await target.open();
  });
  afterAll(async () => {
    await store?.close();
    await target.cleanup();
  });

  it('migrates idempotently: a second open of the same database works and sees the data', async () => {
    const a = account();
    await store.createAccount(a);
    const again = await target.open();
    try {
      expect(await again.getAccount(a.id)).toEqual(a);
    } finally {
      await again.close();
    }
  });

  it('creates, reads, lists accounts and refuses a duplicate email with 409', async () => {
    const a = account();
    await store.createAccount(a);
    expect(await store.getAccount(a.id)).toEqual(a);
    expect(await store.getAccount('acc_missing')).toBeUndefined();
    expect((await store.listAccounts()).map((x) => x.id)).toContain(a.id);
    const err = await store.createAccount(account({ email: a.email })).catch((e: unknown) => e);
    expect(isAppError(err, 'conflict')).toBe(true);
    expect((err as Error).message).toBe(`An account with the email ${a.email} already exists`);
  });

  it('changes an account plan', async () => {
    const a = account();
    await store.createAccount(a);
    expect((await store.setAccountPlan(a.id, 'free'))?.plan).toBe('free');
    expect(await store.setAccountPlan('acc_missing', 'free')).toBeUndefined();
  });

  it('finds a key by id and by hash together with its account, and lists an account’s keys in order', async () => {
    const a = account();
    await store.createAccount(a);
    const k1 = key(a.id, { expiresAt: 1_800_000_000_000 });
    const k2 = key(a.id);
    await store.insertKey(k1);
    await store.insertKey(k2);
    expect(await store.findKey({ id: k1.id })).toEqual({ key: k1, account: a });
    expect(await store.findKey({ hash: k2.hash })).toEqual({ key: k2, account: a });
    expect(await store.findKey({ hash: 'f'.repeat(64) })).toBeUndefined();
    expect(await store.listKeys(a.id)).toEqual([k1, k2]);
  });

  it('revokes once: a second revoke keeps the first time', async () => {
    const a = account();
    await store.createAccount(a);
    const k = key(a.id);
    await store.insertKey(k);
    expect((await store.revokeKey(k.id, 111))?.revokedAt).toBe(111);
    expect((await store.revokeKey(k.id, 222))?.revokedAt).toBe(111);
    expect(await store.revokeKey('key_missing', 1)).toBeUndefined();
  });

  it('rotates in one step: new key inserted, old one expires at the grace time or its earlier expiry', async () => {
    const a = account();
    await store.createAccount(a);
    const old = key(a.id);
    const soon = key(a.id, { expiresAt: 500 });
    await store.insertKey(old);
    await store.insertKey(soon);
    const next1 = key(a.id);
    const next2 = key(a.id);
    await store.rotateKey(old.id, next1, 1000);
    await store.rotateKey(soon.id, next2, 1000);
    expect((await store.findKey({ id: old.id }))?.key.expiresAt).toBe(1000);
    expect((await store.findKey({ id: soon.id }))?.key.expiresAt).toBe(500);
    expect((await store.findKey({ id: next1.id }))?.key).toEqual(next1);
    expect((await store.findKey({ id: old.id }))?.key.replacedBy).toBe(next1.id);
  });

  it('rotates a key once: a second rotation (or one of a revoked key) writes nothing and says so', async () => {
    const a = account();
    await store.createAccount(a);
    const old = key(a.id);
    const gone = key(a.id, { revokedAt: 10 });
    await store.insertKey(old);
    await store.insertKey(gone);
    const first = key(a.id);
    const second = key(a.id);
    expect(await store.rotateKey(old.id, first, 5000)).toBe(true);
    expect(await store.rotateKey(old.id, second, 1000)).toBe(false);
    expect(await store.rotateKey(gone.id, key(a.id), 1000)).toBe(false);
    expect(await store.findKey({ id: second.id })).toBeUndefined();
    expect((await store.findKey({ id: old.id }))?.key).toMatchObject({
      replacedBy: first.id,
      expiresAt: 5000,
    });
    expect((await store.listKeys(a.id)).map((k) => k.id)).toEqual([old.id, gone.id, first.id]);
  });

  it('rolls a failed rotation back whole (the new key collides): the old key is unchanged', async () => {
    const a = account();
    await store.createAccount(a);
    const old = key(a.id);
    await store.insertKey(old);
    await expect(store.rotateKey(old.id, { ...key(a.id), hash: old.hash }, 1000)).rejects.toThrow();
    expect((await store.findKey({ id: old.id }))?.key.expiresAt).toBeNull();
  });

  it('raises last_used_at and never lowers it', async () => {
    const a = account();
    await store.createAccount(a);
    const k = key(a.id);
    await store.insertKey(k);
    await store.touchKeys([{ id: k.id, at: 2000 }]);
    await store.touchKeys([{ id: k.id, at: 1000 }]);
    expect((await store.findKey({ id: k.id }))?.key.lastUsedAt).toBe(2000);
  });

  it('adds usage counts across batches and reads a day range in order', async () => {
    const a = account();
    await store.createAccount(a);
    await store.addUsage([
      { accountId: a.id, day: '2026-01-01', kind: 'template', count: 2 },
      { accountId: a.id, day: '2026-01-02', kind: 'cache_hit', count: 5 },
    ]);
    await store.addUsage([
      { accountId: a.id, day: '2026-01-01', kind: 'template', count: 3 },
      { accountId: a.id, day: '2026-01-03', kind: 'error', count: 1 },
    ]);
    expect(await store.usage(a.id, '2026-01-01', '2026-01-02')).toEqual([
      { accountId: a.id, day: '2026-01-01', kind: 'template', count: 5 },
      { accountId: a.id, day: '2026-01-02', kind: 'cache_hit', count: 5 },
    ]);
  });

  it('claims a meta value once, even when two connections race for it', async () => {
    const other = await target.open();
    try {
      const results = await Promise.all([store.claimMeta('race', 'a'), other.claimMeta('race', 'b')]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(['a', 'b']).toContain(await store.getMeta('race'));
      expect(await store.claimMeta('race', 'c')).toBe(false);
      expect(await store.getMeta('nothing')).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  it('finds accounts by email and keeps one password per account (replaced, never duplicated)', async () => {
    const a = account();
    await store.createAccount(a);
    expect(await store.getAccountByEmail(a.email)).toEqual(a);
    expect(await store.getAccountByEmail('nobody@acme.test')).toBeUndefined();
    expect(await store.getPassword(a.id)).toBeUndefined();
    await store.setPassword(a.id, '$scrypt$one', 1);
    await store.setPassword(a.id, '$scrypt$two', 2);
    expect(await store.getPassword(a.id)).toBe('$scrypt$two');
  });

  it('uses an invite once, even when two connections race, and never after it expired', async () => {
    const a = account();
    await store.createAccount(a);
    const hash = `inv${n}`.padEnd(64, '0');
    await store.insertInvite({ hash, accountId: a.id, createdAt: 100, expiresAt: 1000, usedAt: null });
    expect(await store.getInvite(hash)).toEqual({
      hash,
      accountId: a.id,
      createdAt: 100,
      expiresAt: 1000,
      usedAt: null,
    });
    const other = await target.open();
    try {
      const used = await Promise.all([store.useInvite(hash, 500), other.useInvite(hash, 501)]);
      expect(used.filter((x) => x === a.id)).toHaveLength(1);
    } finally {
      await other.close();
    }
    expect(await store.useInvite(hash, 502)).toBeUndefined();
    const late = `late${n}`.padEnd(64, '0');
    await store.insertInvite({ hash: late, accountId: a.id, createdAt: 100, expiresAt: 1000, usedAt: null });
    expect(await store.useInvite(late, 1000)).toBeUndefined();
  });

  it("voids every unused invite of one account, and no other account's", async () => {
    const a = account();
    const b = account();
    await store.createAccount(a);
    await store.createAccount(b);
    const h = (x: string) => `${x}${n}`.padEnd(64, '0');
    await store.insertInvite({
      hash: h('va1'),
      accountId: a.id,
      createdAt: 1,
      expiresAt: 9000,
      usedAt: null,
    });
    await store.insertInvite({ hash: h('va2'), accountId: a.id, createdAt: 2, expiresAt: 9000, usedAt: 5 });
    await store.insertInvite({
      hash: h('vb1'),
      accountId: b.id,
      createdAt: 3,
      expiresAt: 9000,
      usedAt: null,
    });
    expect(await store.voidInvitesOf(a.id, 700)).toBe(1);
    expect((await store.getInvite(h('va1')))?.usedAt).toBe(700);
    expect((await store.getInvite(h('va2')))?.usedAt).toBe(5);
    expect(await store.useInvite(h('va1'), 800)).toBeUndefined();
    expect(await store.useInvite(h('vb1'), 800)).toBe(b.id);
  });

  it('stores sessions, raises last-seen only forwards, deletes one or all, and purges ended ones', async () => {
    const a = account();
    await store.createAccount(a);
    const s = (h: string, over: Partial<import('../../src/storage/store.js').SessionRecord> = {}) => ({
      hash: `${h}${n}`.padEnd(64, '0'),
      accountId: a.id,
      createdAt: 1000,
      lastSeenAt: 1000,
      expiresAt: 100_000,
      ...over,
    });
    const live = s('live');
    const idle = s('idle', { lastSeenAt: 1000 });
    const old = s('old', { expiresAt: 5000 });
    for (const x of [live, idle, old]) await store.insertSession(x);
    await store.touchSession(live.hash, 9000);
    await store.touchSession(live.hash, 8000);
    expect((await store.getSession(live.hash))?.lastSeenAt).toBe(9000);
    await store.purgeExpired(6000, 5000); // idle before 5000, absolute end at or before 6000
    expect(await store.getSession(live.hash)).toEqual({ ...live, lastSeenAt: 9000 });
    expect(await store.getSession(idle.hash)).toBeUndefined();
    expect(await store.getSession(old.hash)).toBeUndefined();
    await store.deleteSession(live.hash);
    expect(await store.getSession(live.hash)).toBeUndefined();
    await store.insertSession(s('a1'));
    await store.insertSession(s('a2'));
    expect(await store.deleteSessionsOf(a.id)).toBe(2);
  });

  it('accepts a form token once and forgets old ones', async () => {
    const h = `form${n++}`.padEnd(64, '0');
    expect(await store.useFormToken(h, 10)).toBe(true);
    expect(await store.useFormToken(h, 11)).toBe(false);
    await store.purgeFormTokens(20);
    expect(await store.useFormToken(h, 30)).toBe(true);
  });

  const theme = (accountId: string, over: Partial<ThemeRecord> = {}): ThemeRecord => ({
    accountId,
    background: '#0F172A',
    text: '#F8FAFC',
    accent: '#6366F1',
    font: 'sans',
    logo: null,
    version: 'a'.repeat(64),
    updatedAt: 1_700_000_000_000,
    ...over,
  });

  it('keeps at most one theme per account: set, read back, replace whole, clear', async () => {
    const a = account();
    const b = account();
    await store.createAccount(a);
    await store.createAccount(b);
    expect(await store.getTheme(a.id)).toBeUndefined();
    // Every byte value, so a driver that treats the logo as text would corrupt it.
    const data = Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256));
    const logo = { data, width: 64, height: 32, sha256: 'b'.repeat(64) };
    await store.setTheme(theme(a.id, { logo }));
    await store.setTheme(theme(b.id, { background: '#FFFFFF', text: '#000000' }));
    expect(await store.getTheme(a.id)).toEqual(theme(a.id, { logo }));
    expect((await store.getTheme(a.id))?.logo?.data.equals(data)).toBe(true);

    // A replace drops the logo when the new theme has none, and never touches the other account.
    await store.setTheme(
      theme(a.id, { accent: '#FF0000', font: 'serif', version: 'c'.repeat(64), updatedAt: 5 }),
    );
    expect(await store.getTheme(a.id)).toEqual(
      theme(a.id, { accent: '#FF0000', font: 'serif', version: 'c'.repeat(64), updatedAt: 5 }),
    );
    expect(await store.getTheme(b.id)).toEqual(theme(b.id, { background: '#FFFFFF', text: '#000000' }));

    expect(await store.clearTheme(a.id)).toBe(true);
    expect(await store.clearTheme(a.id)).toBe(false);
    expect(await store.getTheme(a.id)).toBeUndefined();
    expect(await store.getTheme(b.id)).toBeDefined();
  });

  it("deletes an account's theme with the account", async () => {
    const a = account();
    await store.createAccount(a);
    await store.setTheme(theme(a.id));
    await target.deleteAccount(a.id);
    expect(await store.getTheme(a.id)).toBeUndefined();
  });

  it('refuses a theme for an account that does not exist', async () => {
    await expect(store.setTheme(theme('acc_missing000000000'))).rejects.toThrow();
  });

  it('answers ping', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
  });
});

describe('SQLite file', () => {
  it('is readable by its owner only (it holds key and password hashes), and so are the WAL files', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-mode-'));
    try {
      const dataDir = path.join(dir, 'data');
      const store = await openStore({ databaseUrl: '', dataDir, databaseSchema: 'public' });
      await store.createAccount(account());
      const file = path.join(dataDir, 'cardshot.sqlite');
      expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect((await stat(`${file}-wal`)).mode & 0o777).toBe(0o600);
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
