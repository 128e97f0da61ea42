import type { Kysely } from 'kysely';

/**
 * The jobs area's outbox (issue 28 §3, durable): an event a job or an item owes its webhooks is
 * written in the same transaction as the state that causes it (the item's result, the job's
 * end, its cancel), then published by a relay that deletes the row only once the webhooks area
 * has queued it. A node that dies in between leaves the row; any node's relay publishes it
 * (again), under the same event id, so the receiver sees one webhook-id.
 *
 * The row names what happened (type, job, item index), not the body: the relay builds the
 * body from the job as stored when it publishes. `claimed_by`/`claimed_until` are a relay's
 * short lease on a row, so several nodes drain one table without publishing a row twice at once.
 */
export const jobOutbox = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('job_outbox')
      .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
      .addColumn('account_id', 'varchar(40)', (c) => c.notNull())
      .addColumn('job_id', 'varchar(40)', (c) => c.notNull())
      // The item of a render.* event; null for a job.* event.
      .addColumn('idx', 'integer')
      .addColumn('type', 'varchar(40)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('claimed_by', 'varchar(40)')
      .addColumn('claimed_until', 'bigint')
      // Publishes that failed (the webhooks area's database call): spaced out, never dropped.
      .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createIndex('job_outbox_due')
      .on('job_outbox')
      .columns(['claimed_until', 'created_at'])
      .execute();
    await db.schema.createIndex('job_outbox_job').on('job_outbox').column('job_id').execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('job_outbox').execute();
  },
};
