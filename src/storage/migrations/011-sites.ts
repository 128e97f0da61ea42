import type { Kysely } from 'kysely';

/**
 * Sites (issue 30 §1): an account's registered origins whose pages get cards at
 * `/og/<site id>/<path>`, with the template, the field mapping and the fallback card, removed
 * with the account. `version` is bumped by a whole-site purge and by every change, so every
 * node's cached cards of the site stop matching at once (they are keyed with it).
 */
export const sites = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('sites')
      .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
      .addColumn('account_id', 'varchar(40)', (c) =>
        c.notNull().references('accounts.id').onDelete('cascade'),
      )
      .addColumn('name', 'varchar(100)', (c) => c.notNull())
      // JSON arrays and objects as text: read whole, never queried into.
      .addColumn('origins', 'text', (c) => c.notNull())
      .addColumn('template', 'varchar(40)', (c) => c.notNull())
      .addColumn('theme', 'varchar(20)')
      .addColumn('fields', 'text', (c) => c.notNull())
      .addColumn('fallback', 'text', (c) => c.notNull())
      .addColumn('refresh_seconds', 'integer', (c) => c.notNull())
      .addColumn('render', 'varchar(10)', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sites_account').on('sites').column('account_id').execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('sites').execute();
  },
};
