/**
 * The accounts area: the database (opened, migrated, its secret checked), the plans and the
 * account manager, with the readiness of the database and of the data dir's disk.
 */
import type { Logger } from 'pino';
import { type Area, startArea } from '../area.js';
import type { AuthConfig } from '../auth/settings.js';
import type { CacheConfig } from '../cache/settings.js';
import { checkDataDir } from '../health/storage.js';
import type { Clock } from '../lib/clock.js';
import { describeDatabase } from '../storage/open.js';
import type { StorageConfig } from '../storage/settings.js';
import { type AccountsModule, openAccounts } from './open.js';
import type { AccountsConfig } from './settings.js';

/** What the accounts area reads: its own settings, the store's, the secret and plans file, the disk floor. */
export type AccountsAreaConfig = AccountsConfig &
  StorageConfig &
  Pick<AuthConfig, 'plansFile' | 'secret'> &
  Pick<CacheConfig, 'diskMinFreeBytes'>;

/** Opens the accounts area; `templates` are the names plans may give (the template registry's). */
export async function createAccountsArea(
  config: AccountsAreaConfig,
  deps: { log: Logger; templates: readonly string[]; clock?: Clock; passwordCost?: number },
): Promise<Area<AccountsModule>> {
  return startArea(deps.log, async (parts) => {
    const accounts = await openAccounts(config, deps.log, {
      templates: deps.templates,
      ...(deps.clock ? { clock: deps.clock } : {}),
      ...(deps.passwordCost !== undefined ? { passwordCost: deps.passwordCost } : {}),
    });
    parts.add('database', () => accounts.close());
    const where = describeDatabase(config);
    return {
      service: accounts,
      checks: {
        database: {
          critical: true,
          run: async () => {
            // An open breaker is the answer at once: the database hung or refused, and requests
            // that need it are being answered 503 (storage/breaker.ts).
            const breaker = accounts.store.databaseHealth?.();
            if (breaker?.state === 'open') {
              throw new Error(
                `not answering since ${new Date(breaker.since).toISOString()}: ${breaker.lastError ?? 'unknown error'}`,
              );
            }
            await accounts.store.ping();
            return accounts.store.kind;
          },
          fix: 'check that the database is running and DATABASE_URL points at it (npx cardshot doctor)',
        },
        storage: {
          // Not critical: reads (keys, cached cards) keep working; writes (usage, new keys,
          // sign-ins) and the disk cache fail until space is freed or the volume is writable.
          critical: false,
          run: () =>
            checkDataDir({
              dataDir: config.dataDir,
              ...(where.kind === 'sqlite' ? { sqliteFile: where.location } : {}),
              minFreeBytes: config.diskMinFreeBytes,
            }),
          fix: 'free space on the data dir disk (the disk cache already gave its share back) or make CARDSHOT_DATA_DIR writable; usage counts are kept in memory meanwhile',
        },
      },
    };
  });
}
