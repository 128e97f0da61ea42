import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../src/auth/authenticate.js';
import { isAppError } from '../../src/errors.js';
import { openStore } from '../../src/storage/open.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';

let t: TestApp;
let clock: FakeClock;
beforeAll(async () => {
  clock = fakeClock();
  t = await startTestApp({ keyCacheSeconds: 0 }, { clock });
});
afterAll(async () => t.close());

const card = (key: string) =>
  t.inject({
    method: 'GET',
    url: '/render/template?template=blog&title=Lifecycle',
    headers: { 'x-api-key': key },
  });
const lastUsed = async (id: string) => (await t.store.findKey({ id }))?.key.lastUsedAt;
const settle = () => new Promise((r) => setTimeout(r, 50));

describe('key lifecycle', () => {
  it('records last use off the request path, at most once a minute per key', async () => {
    const k = await t.modules.accounts.accounts.createKey({
      accountId: t.account.id,
      name: 'lu',
      environment: 'test',
    });
    expect(await lastUsed(k.record.id)).toBeNull();
    const first = clock.now();
    await card(k.key);
    await settle();
    expect(await lastUsed(k.record.id)).toBe(first);
    clock.advance(59_000);
    await card(k.key);
    await settle();
    expect(await lastUsed(k.record.id)).toBe(first);
    clock.advance(1_000);
    await card(k.key);
    await settle();
    expect(await lastUsed(k.record.id)).toBe(first + 60_000);
  });

  it('rotation: the new key works at once, the old one until the grace period ends', async () => {
    const old = await t.modules.accounts.accounts.createKey({
      accountId: t.account.id,
      name: 'rot',
      environment: 'production',
    });
    const { created, old: after } = await t.modules.accounts.accounts.rotateKey(old.record.id, 3_600_000);
    expect(created.record).toMatchObject({ name: 'rot', environment: 'production', expiresAt: null });
    expect(after.expiresAt).toBe(clock.now() + 3_600_000);
    expect((await card(created.key)).statusCode).toBe(200);
    expect((await card(old.key)).statusCode).toBe(200);
    clock.advance(3_600_000);
    expect((await card(old.key)).statusCode).toBe(401);
    expect((await card(created.key)).statusCode).toBe(200);
  });

  it('a key in its grace period is not rotated again, so no new key inherits the grace deadline as its expiry', async () => {
    const accounts = t.modules.accounts.accounts;
    const old = await accounts.createKey({
      accountId: t.account.id,
      name: 'twice',
      environment: 'production',
    });
    const { created } = await accounts.rotateKey(old.record.id, 86_400_000);
    const before = (await accounts.listKeys(t.account.id)).length;
    await expect(accounts.rotateKey(old.record.id, 3_600_000)).rejects.toMatchObject({
      code: 'conflict',
      message: `Key ${old.record.id} was already rotated; rotate its replacement ${created.record.id} instead`,
    });
    expect((await accounts.listKeys(t.account.id)).length).toBe(before);
    const [stored] = (await accounts.listKeys(t.account.id)).filter((k) => k.id === old.record.id);
    expect(stored).toMatchObject({ replacedBy: created.record.id, expiresAt: clock.now() + 86_400_000 });
    // The replacement rotates as usual, and its own replacement never expires.
    const next = await accounts.rotateKey(created.record.id, 0);
    expect(next.created.record.expiresAt).toBeNull();
  });

  it('two rotations of one key at once: one replaces it, the other is refused and mints nothing', async () => {
    const accounts = t.modules.accounts.accounts;
    const old = await accounts.createKey({
      accountId: t.account.id,
      name: 'race',
      environment: 'production',
    });
    const before = (await accounts.listKeys(t.account.id)).length;
    const results = await Promise.allSettled([
      accounts.rotateKey(old.record.id, 3_600_000),
      accounts.rotateKey(old.record.id, 3_600_000),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((await accounts.listKeys(t.account.id)).length).toBe(before + 1);
  });

  it("rotation keeps the old key's expiry for the new key, never extends the old one, and refuses an expired key", async () => {
    const expiresAt = clock.now() + 1_800_000;
    const old = await t.modules.accounts.accounts.createKey({
      accountId: t.account.id,
      name: 'short',
      environment: 'production',
      expiresAt,
    });
    const { created, old: after } = await t.modules.accounts.accounts.rotateKey(old.record.id, 3_600_000);
    expect(created.record.expiresAt).toBe(expiresAt);
    expect(after.expiresAt).toBe(expiresAt); // the 1 h grace would have outlived it
    clock.advance(1_800_000);
    expect((await card(created.key)).statusCode).toBe(401);
    await expect(t.modules.accounts.accounts.rotateKey(created.record.id, 0)).rejects.toThrow(
      `Key ${created.record.id} has expired; create a new key`,
    );
  });
});

describe('key store unreachable', () => {
  it('keeps admitting a key verified in the last 30 s, then answers 503; unknown keys get 503 at once', async () => {
    // A second, separate store on the same file, closed on purpose: its queries then fail for real.
    const store = await openStore(t.config);
    const auth = createAuthenticator({
      store,
      secrets: t.modules.accounts.secrets,
      plans: t.modules.accounts.plans,
      log: pino({ level: 'silent' }),
      clock,
      cacheMs: 1000,
    });
    const req = { method: 'GET', path: '/render/template', headers: { 'x-api-key': t.key.key }, query: {} };
    expect((await auth.authenticate(req)).keyId).toBe(t.key.record.id);
    await store.close();
    clock.advance(29_000);
    expect((await auth.authenticate(req)).keyId).toBe(t.key.record.id);
    clock.advance(1_000);
    const err = await auth.authenticate(req).catch((e: unknown) => e);
    expect(isAppError(err, 'unavailable')).toBe(true);
    expect((err as Error).message).toBe('API keys cannot be checked right now; retry shortly');
    const other = await t.modules.accounts.accounts.createKey({
      accountId: t.account.id,
      name: 'x',
      environment: 'test',
    });
    const err2 = await auth
      .authenticate({ ...req, headers: { 'x-api-key': other.key } })
      .catch((e: unknown) => e);
    expect(isAppError(err2, 'unavailable')).toBe(true);
  });
});
