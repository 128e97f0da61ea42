import type { Account } from '../storage/store.js';
import type { CreatedKey } from './manager.js';
import type { AccountsModule } from './open.js';

/**
 * On the first start with an empty database: a default account on the pro plan and one
 * development key. A meta row claimed atomically makes this happen once, even when several
 * nodes start together, and never again on later starts.
 */
export async function firstRun(
  mod: AccountsModule,
): Promise<{ account: Account; created: CreatedKey } | null> {
  if (!(await mod.store.claimMeta('first_run', new Date().toISOString()))) return null;
  if ((await mod.store.listAccounts()).length > 0) return null;
  const plan = mod.plans.has('pro') ? 'pro' : [...mod.plans.keys()][0]!;
  const account = await mod.accounts.createAccount({
    name: 'Default account',
    email: 'admin@localhost',
    plan,
  });
  const created = await mod.accounts.createKey({
    accountId: account.id,
    name: 'Development key',
    environment: 'development',
  });
  return { account, created };
}

/** The text printed once for the first-run key: the key, the signing secret and a curl command. */
export function firstRunMessage(baseUrl: string, account: Account, created: CreatedKey): string {
  const curl = `curl -sS -H 'x-api-key: ${created.key}' '${baseUrl}/render/template?template=blog&title=Hello%20from%20Cardshot' -o card.png`;
  return [
    '',
    `Cardshot created the account ${account.id} (plan ${account.plan}) and a development key.`,
    'The key is shown this once; it is stored only as a hash:',
    '',
    `  API key:        ${created.key}`,
    `  Key id:         ${created.record.id}`,
    `  Signing secret: ${created.signingSecret}   (for signed URLs: npx cardshot sign --help)`,
    '',
    'Try it:',
    '',
    `  ${curl}`,
    '',
    `More keys: npx cardshot keys create --account ${account.id} --name "My app" --environment production`,
    '',
  ].join('\n');
}
