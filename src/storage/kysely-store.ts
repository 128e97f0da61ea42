import { type Kysely, Migrator, type Selectable, sql } from 'kysely';
import { AppError } from '../errors.js';
import { errnoCode } from '../lib/os-error.js';
import { createDashboardStore } from './kysely-dashboard.js';
import { createThemeStore } from './kysely-themes.js';
import { createWebhookStore } from './kysely-webhooks.js';
import { migrationProvider } from './migrations/index.js';
import type { Account, ApiKeyRecord, Store, UsageKind, UsageRow } from './store.js';
import type { Tables } from './tables.js';

/**
 * PostgreSQL errors a catalog query can meet when another session drops a schema or table while
 * it runs: kysely's migrator lists every schema's tables through functions that look each one up
 * again by name (`has_schema_privilege`, `pg_get_serial_sequence`), so a schema another
 * deployment or test run drops at that moment failed our start with `schema "<theirs>" does not
 * exist` (seen in CI; test/storage/postgres-schemas.test.ts provokes it).
 */
const CATALOG_RACES = new Set(['3F000', '42P01', 'XX000']);
/**
 * 8 tries once all met a drop in a clean CI beside the test's continuous churn on a loaded node
 * (the look is slower there, so it meets more drops); 20, spaced up to 250 ms apart (~4 s in
 * all at worst), for a start that a neighbour's drops can delay but not fail.
 */
const MIGRATE_TRIES = 20;

/**
 * Brings the schema up to date; safe to run from several processes at once (kysely locks).
 * On PostgreSQL the migration tables are named with their schema: kysely looks for them by name
 * across every schema of the database, so another deployment's (or test run's) schema in the
 * same database would otherwise make it skip creating ours and then fail to find it. A failure
 * of the migrator's own look at the catalog (no migration ran) changed nothing: it is tried
 * again, a little later each time.
 */
export async function migrate(db: Kysely<Tables>, schema?: string): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: migrationProvider,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return;
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    const code = errnoCode(error); // pg puts the SQLSTATE where Node puts an errno code
    const race = !failed && code !== undefined && CATALOG_RACES.has(code);
    if (race && attempt < MIGRATE_TRIES) {
      // Apart in time, so the next look is unlikely to meet the same burst of drops.
      await new Promise((r) => setTimeout(r, Math.min(20 * attempt, 200) + Math.random() * 50));
      continue;
    }
    throw new Error(
      `database migration${failed ? ` ${failed}` : ''} failed: ${(error as Error).message ?? error}`,
    );
  }
}

/** The Store over an open, migrated kysely instance. */
export function createKyselyStore(db: Kysely<Tables>, kind: Store['kind']): Store {
  const keyColumns = [
    'api_keys.id',
    'api_keys.account_id',
    'api_keys.name',
    'api_keys.environment',
    'api_keys.prefix',
    'api_keys.last4',
    'api_keys.hash',
    'api_keys.created_at',
    'api_keys.last_used_at',
    'api_keys.expires_at',
    'api_keys.revoked_at',
    'api_keys.replaced_by',
  ] as const;

  return {
    kind,
    db,
    ...createDashboardStore(db),
    ...createThemeStore(db),
    ...createWebhookStore(db),

    async createAccount(a) {
      try {
        await db
          .insertInto('accounts')
          .values({ id: a.id, name: a.name, email: a.email, plan: a.plan, created_at: a.createdAt })
          .execute();
      } catch (err) {
        if (isUniqueViolation(err)) {
          throw new AppError('conflict', `An account with the email ${a.email} already exists`);
        }
        throw err;
      }
    },

    async getAccount(id) {
      const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toAccount(row);
    },

    async listAccounts() {
      const rows = await db.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map(toAccount);
    },

    async setAccountPlan(id, plan) {
      await db.updateTable('accounts').set({ plan }).where('id', '=', id).execute();
      return this.getAccount(id);
    },

    async insertKey(k) {
      await db.insertInto('api_keys').values(fromKey(k)).execute();
    },

    async findKey(by) {
      const row = await db
        .selectFrom('api_keys')
        .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
        .select(keyColumns)
        .select([
          'accounts.name as a_name',
          'accounts.email as a_email',
          'accounts.plan as a_plan',
          'accounts.created_at as a_created_at',
        ])
        .where('id' in by ? 'api_keys.id' : 'api_keys.hash', '=', 'id' in by ? by.id : by.hash)
        .executeTakeFirst();
      if (!row) return undefined;
      return {
        key: toKey(row),
        account: {
          id: row.account_id,
          name: row.a_name,
          email: row.a_email,
          plan: row.a_plan,
          createdAt: row.a_created_at,
        },
      };
    },

    async listKeys(accountId) {
      const rows = await db
        .selectFrom('api_keys')
        .selectAll()
        .where('account_id', '=', accountId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toKey);
    },

    async revokeKey(id, at) {
      await db
        .updateTable('api_keys')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .execute();
      const row = await db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toKey(row);
    },

    async rotateKey(oldId, next, expiresAt) {
      return transact(db, async (tx) => {
        // Claims the old key first: of two rotations at once (two tabs, two nodes), one
        // replaces it and the other inserts nothing.
        const claimed = await tx
          .updateTable('api_keys')
          .set({ replaced_by: next.id })
          .where('id', '=', oldId)
          .where('replaced_by', 'is', null)
          .where('revoked_at', 'is', null)
          .executeTakeFirst();
        if (Number(claimed.numUpdatedRows) === 0) return false;
        await tx.insertInto('api_keys').values(fromKey(next)).execute();
        await tx
          .updateTable('api_keys')
          .set({ expires_at: expiresAt })
          .where('id', '=', oldId)
          .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', expiresAt)]))
          .execute();
        return true;
      });
    },

    async touchKeys(entries) {
      if (entries.length === 0) return;
      await transact(db, async (tx) => {
        for (const e of entries) {
          await tx
            .updateTable('api_keys')
            .set({ last_used_at: e.at })
            .where('id', '=', e.id)
            .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', e.at)]))
            .execute();
        }
      });
    },

    async addUsage(rows) {
      if (rows.length === 0) return;
      await transact(db, async (tx) => {
        for (const r of rows) {
          await tx
            .insertInto('usage_daily')
            .values({ account_id: r.accountId, day: r.day, kind: r.kind, count: r.count })
            .onConflict((oc) =>
              oc
                .columns(['account_id', 'day', 'kind'])
                .doUpdateSet((eb) => ({ count: eb('usage_daily.count', '+', eb.ref('excluded.count')) })),
            )
            .execute();
        }
      });
    },

    async usage(accountId, fromDay, toDay) {
      const rows = await db
        .selectFrom('usage_daily')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('day', '>=', fromDay)
        .where('day', '<=', toDay)
        .orderBy('day')
        .orderBy('kind')
        .execute();
      return rows.map(
        (r): UsageRow => ({ accountId: r.account_id, day: r.day, kind: r.kind as UsageKind, count: r.count }),
      );
    },

    async claimMeta(name, value) {
      const result = await db
        .insertInto('meta')
        .values({ name, value, updated_at: Date.now() })
        .onConflict((oc) => oc.column('name').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    async getMeta(name) {
      const row = await db.selectFrom('meta').select('value').where('name', '=', name).executeTakeFirst();
      return row?.value;
    },

    async ping() {
      await db.selectFrom('meta').select('name').limit(1).execute();
    },

    async close() {
      await db.destroy();
    },
  };
}

function toAccount(r: Selectable<Tables['accounts']>): Account {
  return { id: r.id, name: r.name, email: r.email, plan: r.plan, createdAt: r.created_at };
}

function toKey(r: Selectable<Tables['api_keys']>): ApiKeyRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    environment: r.environment,
    prefix: r.prefix,
    last4: r.last4,
    hash: r.hash,
    createdAt: r.created_at,
    lastUsedAt: r.last_used_at,
    expiresAt: r.expires_at,
    revokedAt: r.revoked_at,
    replacedBy: r.replaced_by,
  };
}

function fromKey(k: ApiKeyRecord): Tables['api_keys'] {
  return {
    id: k.id,
    account_id: k.accountId,
    name: k.name,
    environment: k.environment,
    prefix: k.prefix,
    last4: k.last4,
    hash: k.hash,
    created_at: k.createdAt,
    last_used_at: k.lastUsedAt,
    expires_at: k.expiresAt,
    revoked_at: k.revokedAt,
    replaced_by: k.replacedBy,
  };
}

/** SQLite's SQLITE_CONSTRAINT_UNIQUE or PostgreSQL's 23505. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
}

/**
 * `fn` in one transaction on one connection. Unlike kysely's own, a failed ROLLBACK never
 * hides the error that caused it: SQLite ends the transaction itself on SQLITE_FULL (a full
 * disk) and some I/O errors, so the ROLLBACK that follows answers "cannot rollback - no
 * transaction is active", which used to be all the log said about a full disk.
 */
export async function transact<DB, T>(db: Kysely<DB>, fn: (tx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.connection().execute(async (conn) => {
    await sql`begin`.execute(conn);
    let result: T;
    try {
      result = await fn(conn);
      await sql`commit`.execute(conn);
    } catch (err) {
      await sql`rollback`.execute(conn).catch(() => {});
      throw err;
    }
    return result;
  });
}
