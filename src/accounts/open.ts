import type { Logger } from 'pino';
import { loadPlans, type Plans } from '../auth/plans.js';
import { deriveSecrets, loadServerSecret, type ServerSecrets } from '../auth/secret.js';
import type { AuthConfig } from '../auth/settings.js';
import { ConfigError } from '../config/load.js';
import type { Clock } from '../lib/clock.js';
import { openStore } from '../storage/open.js';
import type { StorageConfig } from '../storage/settings.js';
import type { Store } from '../storage/store.js';
import { type Credentials, createCredentials } from './credentials.js';
import { type AccountManager, createAccountManager } from './manager.js';
import type { AccountsConfig } from './settings.js';

/** The store, the server secret, the plans and the account manager: what the CLI needs, no renderer. */
export interface AccountsModule {
  store: Store;
  secrets: ServerSecrets;
  plans: Plans;
  accounts: AccountManager;
  /** Dashboard passwords and invite links. */
  credentials: Credentials;
  /** Lets caches subscribe to key changes (revoke, rotate, plan change). */
  onKeyChanged(listener: (keyId?: string) => void): void;
  close(): Promise<void>;
}

/**
 * Opens and migrates the database, loads the secret and plans, and checks the secret against
 * the one the database was first used with: a node started with another CARDSHOT_SECRET would
 * refuse every existing key, so it refuses to start instead.
 */
export async function openAccounts(
  config: AccountsConfig & Pick<AuthConfig, 'plansFile' | 'secret'> & StorageConfig,
  log: Logger,
  opts: { templates: readonly string[]; clock?: Clock; passwordCost?: number },
): Promise<AccountsModule> {
  const plans = loadPlans(opts.templates, config.plansFile);
  const { secret } = await loadServerSecret(config);
  const secrets = deriveSecrets(secret);
  const store = await openStore(config, (err) => log.warn({ err }, 'database connection lost'), log);
  try {
    if (!(await store.claimMeta('secret_fingerprint', secrets.fingerprint))) {
      if ((await store.getMeta('secret_fingerprint')) !== secrets.fingerprint) {
        throw new ConfigError(
          'CARDSHOT_SECRET is not the secret this database was set up with, so no existing key would verify; give every node the same CARDSHOT_SECRET (or the same data dir secret file)',
        );
      }
    }
  } catch (err) {
    await store.close();
    throw err;
  }
  const listeners: Array<(keyId?: string) => void> = [];
  const accounts = createAccountManager({
    store,
    secrets,
    plans,
    maxActiveKeys: config.maxKeysPerAccount,
    ...(opts.clock ? { clock: opts.clock } : {}),
    onKeyChanged: (keyId) => {
      for (const l of listeners) l(keyId);
    },
  });
  const credentials = createCredentials({
    store,
    secrets,
    inviteMs: config.inviteHours * 3_600_000,
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.passwordCost !== undefined ? { passwordCost: opts.passwordCost } : {}),
  });
  return {
    store,
    secrets,
    plans,
    accounts,
    credentials,
    onKeyChanged: (l) => listeners.push(l),
    close: () => store.close(),
  };
}
