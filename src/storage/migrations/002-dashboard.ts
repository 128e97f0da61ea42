import type { Kysely } from 'kysely';

/**
 * Dashboard sign-in: one password per account, one-time invite links, sessions, and the
 * one-time form tokens that stop a reloaded "create key" form from creating a second key.
 * Every secret token is stored only as an HMAC under the server secret (`hash` columns).
 */
export const dashboard = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('passwords')
      .addColumn('account_id', 'varchar(40)', (c) =>
        c.primaryKey().references('accounts.id').onDelete('cascade'),
      )
      .addColumn('hash', 'varchar(200)', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('invites')
      .addColumn('hash', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('account_id', 'varchar(40)', (c) =>
        c.notNull().references('accounts.id').onDelete('cascade'),
      )
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .execute();

    // Sessions live in the database, not in one process, so every node behind a load
    // balancer accepts the same cookie.
    await db.schema
      .createTable('sessions')
      .addColumn('hash', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('account_id', 'varchar(40)', (c) =>
        c.notNull().references('accounts.id').onDelete('cascade'),
      )
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sessions_account_id').on('sessions').column('account_id').execute();

    await db.schema
      .createTable('form_tokens')
      .addColumn('hash', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('used_at', 'bigint', (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    for (const t of ['form_tokens', 'sessions', 'invites', 'passwords'])
      await db.schema.dropTable(t).execute();
  },
};
