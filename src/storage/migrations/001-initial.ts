import { type Kysely, sql } from 'kysely';

/**
 * Accounts, API keys, daily usage and a small meta table. Written with kysely's schema builder
 * so one migration runs on SQLite and PostgreSQL; `bigint` holds unix milliseconds on both.
 */
export const initial = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('accounts')
      .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
      .addColumn('name', 'varchar(200)', (c) => c.notNull())
      .addColumn('email', 'varchar(320)', (c) => c.notNull().unique())
      .addColumn('plan', 'varchar(40)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('api_keys')
      .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
      .addColumn('account_id', 'varchar(40)', (c) =>
        c.notNull().references('accounts.id').onDelete('cascade'),
      )
      .addColumn('name', 'varchar(200)', (c) => c.notNull())
      .addColumn('environment', 'varchar(40)', (c) => c.notNull())
      .addColumn('prefix', 'varchar(80)', (c) => c.notNull())
      .addColumn('last4', 'varchar(8)', (c) => c.notNull())
      .addColumn('hash', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .addColumn('expires_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema.createIndex('api_keys_account_id').on('api_keys').column('account_id').execute();

    // One row per account, UTC day and kind: the dashboard's 30-day chart reads ~120 rows.
    await db.schema
      .createTable('usage_daily')
      .addColumn('account_id', 'varchar(40)', (c) =>
        c.notNull().references('accounts.id').onDelete('cascade'),
      )
      .addColumn('day', 'varchar(10)', (c) => c.notNull())
      .addColumn('kind', 'varchar(20)', (c) => c.notNull())
      .addColumn('count', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('usage_daily_pk', ['account_id', 'day', 'kind'])
      .execute();

    await db.schema
      .createTable('meta')
      .addColumn('name', 'varchar(80)', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull().defaultTo(sql`0`))
      .execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    for (const t of ['meta', 'usage_daily', 'api_keys', 'accounts']) await db.schema.dropTable(t).execute();
  },
};
