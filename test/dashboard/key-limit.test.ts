import { describe, expect, it, onTestFinished } from 'vitest';
import { AppError } from '../../src/errors.js';
import { startTestApp } from '../helpers/app.js';
import { csrfOf, onceOf, signedIn } from '../helpers/dashboard.js';

const LIMIT =
  'This account already has 3 active keys, the most it may have (3); revoke one it no longer uses first';

// Issue 20 §5: an account could create keys without end.
describe('keys per account', () => {
  it('are capped at CARDSHOT_MAX_KEYS_PER_ACCOUNT active keys: 409 with the reason, for the CLI and the dashboard', async () => {
    const t = await startTestApp({ maxKeysPerAccount: 3 });
    onTestFinished(() => t.close());
    const { accounts } = t.modules.accounts;
    const make = (name: string) =>
      accounts.createKey({ accountId: t.account.id, name, environment: 'production' });
    // The test app's own key is the first; two more reach the cap.
    const made = [await make('two'), await make('three')];
    const err = await make('four').then(
      () => new Error('a fourth key was created'),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AppError);
    expect([(err as AppError).code, (err as AppError).message]).toEqual(['conflict', LIMIT]);

    // The dashboard says the same, with 409, and keeps the form.
    const c = await signedIn(t);
    const page = (await c.get('/dashboard/keys')).body;
    const form = {
      _csrf: csrfOf(page),
      once: onceOf(page),
      name: 'Dash',
      environment: 'production',
      expires: '',
    };
    const refused = await c.post('/dashboard/keys', form);
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain(`${LIMIT}.`);
    expect(refused.body).toContain('value="Dash"');

    // Revoked and rotated-away keys do not count: revoking one makes room again.
    await accounts.revokeKey(made[0]!.record.id);
    const again = (await c.get('/dashboard/keys')).body;
    const ok = await c.post('/dashboard/keys', { ...form, _csrf: csrfOf(again), once: onceOf(again) });
    expect(ok.statusCode).toBe(201);
    // The panel shows the key the server made (its id is in the store), not anything from the form.
    const stored = (await t.store.listKeys(t.account.id)).find((k) => k.name === 'Dash')!;
    expect(ok.body).toContain(stored.id);
    expect((await t.store.listKeys(t.account.id)).filter((k) => k.revokedAt === null)).toHaveLength(3);
  });
});
