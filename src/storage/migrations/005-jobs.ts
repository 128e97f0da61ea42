import type { Kysely } from 'kysely';

/**
 * Jobs (issue 28 §1): one row per job, one per item. Items keep their request (the JSON the
 * submission validated) so any node can run them, and their result's facts (the file under
 * the data dir, its ETag and size); a job's counts are counted from its items, never kept
 * beside them, so an item that runs twice cannot count twice. Both are removed with their
 * account, and by the retention sweep after `expires_at`.
 */
export const jobs = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('jobs')
      .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
      .addColumn('account_id', 'varchar(40)', (c) =>
        c.notNull().references('accounts.id').onDelete('cascade'),
      )
      .addColumn('status', 'varchar(12)', (c) => c.notNull())
      .addColumn('total', 'integer', (c) => c.notNull())
      .addColumn('webhook', 'varchar(64)')
      .addColumn('metadata', 'text')
      .addColumn('idempotency_key', 'varchar(255)')
      // 0 until every item is in the queue: a node that died half-way is finished by the next.
      .addColumn('enqueued', 'integer', (c) => c.notNull().defaultTo(0))
      // Bytes of the result files of its items (raised with each stored result, in one transaction).
      .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('started_at', 'bigint')
      .addColumn('completed_at', 'bigint')
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    // Newest first per account (GET /jobs); an Idempotency-Key answers one job per account.
    await db.schema
      .createIndex('jobs_account_created')
      .on('jobs')
      .columns(['account_id', 'created_at', 'id'])
      .execute();
    await db.schema
      .createIndex('jobs_account_idempotency')
      .on('jobs')
      .columns(['account_id', 'idempotency_key'])
      .unique()
      .execute();
    await db.schema.createIndex('jobs_expires').on('jobs').column('expires_at').execute();

    await db.schema
      .createTable('job_items')
      .addColumn('job_id', 'varchar(40)', (c) => c.notNull().references('jobs.id').onDelete('cascade'))
      .addColumn('idx', 'integer', (c) => c.notNull())
      .addColumn('account_id', 'varchar(40)', (c) => c.notNull())
      .addColumn('kind', 'varchar(12)', (c) => c.notNull())
      .addColumn('request', 'text', (c) => c.notNull())
      .addColumn('status', 'varchar(12)', (c) => c.notNull())
      .addColumn('error', 'text')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('file', 'varchar(300)')
      .addColumn('content_type', 'varchar(40)')
      .addColumn('bytes', 'integer')
      .addColumn('etag', 'varchar(100)')
      .addColumn('width', 'integer')
      .addColumn('height', 'integer')
      .addColumn('started_at', 'bigint')
      .addColumn('completed_at', 'bigint')
      .addPrimaryKeyConstraint('job_items_pk', ['job_id', 'idx'])
      .execute();
    await db.schema
      .createIndex('job_items_status')
      .on('job_items')
      .columns(['job_id', 'status', 'idx'])
      .execute();
    // An account's waiting items across its jobs (the plan's maxWaiting).
    await db.schema
      .createIndex('job_items_account_status')
      .on('job_items')
      .columns(['account_id', 'status'])
      .execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('job_items').execute();
    await db.schema.dropTable('jobs').execute();
  },
};
