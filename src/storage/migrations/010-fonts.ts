import { type Kysely, PostgresAdapter } from 'kysely';

/**
 * Fonts uploaded by accounts (issue 30 §3): the checked file itself and what the check learned
 * (weights, code points and advance widths for the text fitter), removed with the account. A
 * theme names one of its account's families in `font_family`.
 */
export const fonts = {
  async up(db: Kysely<unknown>): Promise<void> {
    const binary = db.getExecutor().adapter instanceof PostgresAdapter ? 'bytea' : 'blob';
    await db.schema
      .createTable('fonts')
      .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
      .addColumn('account_id', 'varchar(40)', (c) =>
        c.notNull().references('accounts.id').onDelete('cascade'),
      )
      .addColumn('family', 'varchar(64)', (c) => c.notNull())
      // Lower-cased: families are matched without regard to case, as CSS does.
      .addColumn('family_key', 'varchar(64)', (c) => c.notNull())
      .addColumn('weight', 'integer', (c) => c.notNull())
      .addColumn('weight_min', 'integer', (c) => c.notNull())
      .addColumn('weight_max', 'integer', (c) => c.notNull())
      .addColumn('italic', 'integer', (c) => c.notNull())
      .addColumn('format', 'varchar(8)', (c) => c.notNull())
      .addColumn('axes', 'varchar(200)', (c) => c.notNull())
      .addColumn('glyphs', 'integer', (c) => c.notNull())
      .addColumn('size', 'integer', (c) => c.notNull())
      .addColumn('sha256', 'varchar(64)', (c) => c.notNull())
      .addColumn('data', binary, (c) => c.notNull())
      .addColumn('metrics', binary, (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('fonts_account').on('fonts').columns(['account_id', 'family_key']).execute();
    await db.schema.alterTable('themes').addColumn('font_family', 'varchar(64)').execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('themes').dropColumn('font_family').execute();
    await db.schema.dropTable('fonts').execute();
  },
};
