/**
 * The auth area: the authenticator with its verified-key cache, forgotten whenever a key changes
 * on this node, and with Redis the revocation notices that carry such changes to every node.
 */
import type { Logger } from 'pino';
import type { AccountsModule } from '../accounts/open.js';
import { type Area, startArea } from '../area.js';
import type { Clock } from '../lib/clock.js';
import type { RedisModule } from '../redis/open.js';
import type { StorageConfig } from '../storage/settings.js';
import { type Authenticator, createAuthenticator } from './authenticate.js';
import { createKeyNotices, type KeyNotices } from './key-notices.js';
import type { AuthConfig } from './settings.js';

/** The authenticator, and the revocation notices when the node has Redis. */
export interface AuthServices {
  authenticator: Authenticator;
  notices: KeyNotices | null;
}

/** Creates the authenticator over the accounts' store, secrets and plans. */
export function createAuthArea(
  config: Pick<AuthConfig, 'keyCacheSeconds'> & Pick<StorageConfig, 'databaseTimeoutMs'>,
  deps: { accounts: AccountsModule; redis: RedisModule | null; log: Logger; clock?: Clock },
): Promise<Area<AuthServices>> {
  const { accounts, redis, log } = deps;
  return startArea(log, (parts) => {
    const authenticator = createAuthenticator({
      store: accounts.store,
      secrets: accounts.secrets,
      plans: accounts.plans,
      log,
      cacheMs: config.keyCacheSeconds * 1000,
      timeoutMs: config.databaseTimeoutMs,
      ...(deps.clock ? { clock: deps.clock } : {}),
    });
    accounts.onKeyChanged((keyId) => authenticator.invalidate(keyId));
    parts.add('authenticator', () => authenticator.close());
    const notices = redis
      ? createKeyNotices({ redis, invalidate: (keyId) => authenticator.invalidate(keyId), log })
      : null;
    if (notices) {
      // Changes made on this node (dashboard) reach the others; this node already forgot the key.
      accounts.onKeyChanged((keyId) => void notices.publish(keyId));
      parts.add('revocation notices', () => notices.close());
    }
    return { service: { authenticator, notices } };
  });
}
