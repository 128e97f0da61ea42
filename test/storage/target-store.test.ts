import { afterAll, describe, expect, it } from 'vitest';
import { createTargetStore, type TargetRecord } from '../../src/delivery/store.js';
import type { Account, Store } from '../../src/storage/store.js';
import { storeTargets } from '../helpers/store-targets.js';

// The delivery area's table (migration 009) on SQLite and PostgreSQL: targets per account,
// another account's id reading as missing, removal with the account.
const targets = await storeTargets('targetstore');

let n = 0;
const T0 = 1_800_000_000_000;
const account = (): Account => ({
  id: `acc_${String(++n).padStart(16, '0')}`,
  name: 'Acme',
  email: `targets${n}-${Math.random()}@acme.test`,
  plan: 'pro',
  createdAt: T0 + n,
});
const target = (accountId: string, over: Partial<TargetRecord> = {}): TargetRecord => ({
  id: `st_${String(++n).padStart(16, '0')}`,
  accountId,
  name: 'Bucket',
  endpoint: 'https://s3.eu-west-1.amazonaws.com',
  region: 'eu-west-1',
  bucket: 'cards',
  prefix: 'p/',
  pathTemplate: '{job}/{index}-{name}.{ext}',
  syncTemplate: '{date}/{id}.{ext}',
  forcePathStyle: false,
  accessKeyId: 'AKIA',
  secretSealed: 'v1.a.b.c',
  createdAt: T0 + n,
  ...over,
});

afterAll(async () => {
  for (const t of targets) await t.cleanup();
});

describe.each(targets)('storage targets on $name', (db) => {
  it('keeps, lists, counts, isolates and deletes targets; the account takes them with it', async () => {
    const store: Store = await db.open();
    try {
      const targetsOf = createTargetStore(store.db);
      const a = account();
      const b = account();
      await store.createAccount(a);
      await store.createAccount(b);
      const t1 = target(a.id);
      const t2 = target(a.id, { forcePathStyle: true, prefix: '' });
      await targetsOf.insertTarget(t1);
      await targetsOf.insertTarget(t2);
      expect(await targetsOf.listTargets(a.id)).toEqual([t1, t2]);
      expect(await targetsOf.countTargets(a.id)).toBe(2);
      expect(await targetsOf.getTarget(a.id, t1.id)).toEqual(t1);
      expect(await targetsOf.getTarget(b.id, t1.id)).toBeUndefined();
      expect(await targetsOf.deleteTarget(b.id, t1.id)).toBe(false);
      expect(await targetsOf.deleteTarget(a.id, t1.id)).toBe(true);
      expect(await targetsOf.listTargets(a.id)).toEqual([t2]);
      await db.deleteAccount(a.id);
      expect(await targetsOf.countTargets(a.id)).toBe(0);
    } finally {
      await store.close();
    }
  });
});
