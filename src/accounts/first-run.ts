import type { Account } from '../storage/store.js';
import { inviteUrl } from './credentials.js';
import type { CreatedKey } from './manager.js';
import type { AccountsModule } from './open.js';

/** What the first start created: shown once (on a terminal, or else in data/first-run.txt). */
export interface FirstRun {
  account: Account;
  created: CreatedKey;
  /** One-time dashboard invite for the account (choose a password, then signed in). */
  invite: { token: string; expiresAt: number };
}

/**
 * On the first start with an empty database: a default account on the pro plan, one
 * development key and a dashboard invite link. A meta row claimed atomically makes this happen once, even when several
 * nodes start together, and never again on later starts.
 */
export async function firstRun(mod: AccountsModule): Promise<FirstRun | null> {
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
  const invite = await mod.credentials.createInvite(account.id);
  return { account, created, invite };
}

/** The text printed once on the first start: the dashboard link, the key, the signing secret and a curl command. */
export function firstRunMessage(baseUrl: string, first: FirstRun): string {
  const { account, created, invite } = first;
  const hours = Math.round((invite.expiresAt - Date.now()) / 3_600_000);
  const curl = `curl -sS -H 'x-api-key: ${created.key}' '${baseUrl}/render/template?template=blog&title=Hello%20from%20Cardshot' -o card.png`;
  return [
    '',
    `Cardshot created the account ${account.id} (${account.email}, plan ${account.plan}) and a development key.`,
    '',
    `Dashboard: open this link to choose a password and sign in (works once, for ${hours} hours):`,
    '',
    `  ${inviteUrl(baseUrl, invite.token)}`,
    '',
    `  Later: ${baseUrl}/dashboard   (new link: npx cardshot accounts invite ${account.email})`,
    '',
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
