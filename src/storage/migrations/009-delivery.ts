import type { Kysely } from 'kysely';

/**
 * Storage targets (issue 31 §3): an account's S3-compatible buckets that renders and job items
 * are delivered to, removed with the account. The secret access key is stored sealed (AES-GCM
 * under a key derived from the server secret, the target id as context): uploads must sign with
 * it again, so a hash would not do, and a database dump alone does not reveal it.
 */
export const delivery = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('storage_targets')
      .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
      .addColumn('account_id', 'varchar(40)', (c) =>
        c.notNull().references('accounts.id').onDelete('cascade'),
      )
      .addColumn('name', 'varchar(100)', (c) => c.notNull())
      .addColumn('endpoint', 'varchar(2048)', (c) => c.notNull())
      .addColumn('region', 'varchar(64)', (c) => c.notNull())
      .addColumn('bucket', 'varchar(63)', (c) => c.notNull())
      .addColumn('prefix', 'varchar(512)', (c) => c.notNull())
      .addColumn('path_template', 'varchar(512)', (c) => c.notNull())
      .addColumn('sync_template', 'varchar(512)', (c) => c.notNull())
      .addColumn('force_path_style', 'integer', (c) => c.notNull())
      .addColumn('access_key_id', 'varchar(256)', (c) => c.notNull())
      .addColumn('secret_sealed', 'varchar(600)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('storage_targets_account_id')
      .on('storage_targets')
      .columns(['account_id', 'created_at'])
      .execute();
    // The target a job's items are delivered to (`"store": "s3"` at submission), kept beside the
    // job rather than in it: a job without delivery has no row. The target id is not a foreign
    // key: a target deleted while its job runs fails the remaining items with a clear error.
    await db.schema
      .createTable('job_deliveries')
      .addColumn('job_id', 'varchar(40)', (c) => c.primaryKey().references('jobs.id').onDelete('cascade'))
      .addColumn('account_id', 'varchar(40)', (c) => c.notNull())
      .addColumn('target_id', 'varchar(40)', (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('job_deliveries').execute();
    await db.schema.dropTable('storage_targets').execute();
  },
};
