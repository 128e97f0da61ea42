import { type Kysely, PostgresAdapter } from 'kysely';

/**
 * Brand themes: at most one per account (the account id is the key), removed with its account.
 * The logo is stored as PNG bytes beside the colours so a card never fetches it at render time;
 * it is at most 512×512 after normalisation, so a row stays well under a megabyte.
 */
export const themes = {
  async up(db: Kysely<unknown>): Promise<void> {
    // bytea on PostgreSQL; SQLite's blob. The schema builder has no portable binary type.
    const binary = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob';
    await db.schema
      .createTable('themes')
      .addColumn('account_id', 'varchar(40)', (c) =>
        c.primaryKey().references('accounts.id').onDelete('cascade'),
      )
      .addColumn('background', 'varchar(7)', (c) => c.notNull())
      .addColumn('text', 'varchar(7)', (c) => c.notNull())
      .addColumn('accent', 'varchar(7)', (c) => c.notNull())
      .addColumn('font', 'varchar(20)', (c) => c.notNull())
      .addColumn('logo', binary)
      .addColumn('logo_width', 'integer')
      .addColumn('logo_height', 'integer')
      .addColumn('logo_sha256', 'varchar(64)')
      .addColumn('version', 'varchar(64)', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('themes').execute();
  },
};
