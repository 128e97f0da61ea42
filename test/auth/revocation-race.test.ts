import { pino } from 'pino';
import { expect, it } from 'vitest';
import { createAuthenticator } from '../../src/auth/authenticate.js';
import { generateKey } from '../../src/auth/keys.js';
import { loadPlans } from '../../src/auth/plans.js';
import { deriveSecrets } from '../../src/auth/secret.js';
import { TEMPLATE_NAMES } from '../../src/render/template/registry.js';
import type { Account, ApiKeyRecord, Store } from '../../src/storage/store.js';

// A revocation notice can arrive while a look-up of the same key is still on its way back
// from the database with the row as it was. That stale row must not be cached: the key would
// then keep working on this node for CARDSHOT_KEY_CACHE_SECONDS after the notice.
it('a look-up that was running when its key was revoked does not put the old row back in the cache', async () => {
  const secrets = deriveSecrets('race-test-secret-0123456789abcdefghijkl');
  const { key, prefix, last4 } = generateKey('test');
  const account: Account = { id: 'acc_race', name: 'r', email: 'r@x.test', plan: 'pro', createdAt: 0 };
  const row: ApiKeyRecord = {
    id: 'key_race',
    accountId: account.id,
    name: 'k',
    environment: 'test',
    prefix,
    last4,
    hash: secrets.hashKey(key),
    createdAt: 0,
    lastUsedAt: null,
    expiresAt: null,
    revokedAt: null,
    replacedBy: null,
  };
  let revoked = false;
  let release: (() => void) | undefined;
  const store = {
    // The first look-up is held until the test lets it go, and returns the row as it was.
    async findKey() {
      const snapshot = { ...row, revokedAt: revoked ? 1 : null };
      if (!release) await new Promise<void>((r) => (release = r));
      return { key: snapshot, account };
    },
    async touchKeys() {},
  } as unknown as Store;
  const auth = createAuthenticator({
    store,
    secrets,
    plans: loadPlans(TEMPLATE_NAMES),
    log: pino({ level: 'silent' }),
    cacheMs: 60_000,
  });
  const req = { method: 'GET', path: '/render/template', headers: { 'x-api-key': key }, query: {} };

  const inFlight = auth.authenticate(req).then(
    () => 'admitted',
    () => 'refused',
  );
  await new Promise((r) => setTimeout(r, 10));
  revoked = true; // committed in the database…
  auth.invalidate(row.id); // …and the notice arrives before the old answer does
  release!();
  // The request that raced the revocation is answered from a fresh read: refused.
  expect(await inFlight).toBe('refused');
  // And nothing stale was cached: the next request is refused too.
  await expect(auth.authenticate(req)).rejects.toThrow('Missing or invalid API key');
});
