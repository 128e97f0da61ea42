import { type Kysely, sql } from 'kysely';

/**
 * A screenshot item's credentials (issue 29 §2: headers, cookies, basicAuth, userAgent), sealed
 * with the server secret (AES-GCM, bound to the item: src/jobs/credentials.ts), in a column of
 * their own so the item's `request`, which the items API and the worker read, never holds them.
 * Cleared once the item has ended (the sweep) or its job is canceled; gone with the row when
 * the job is deleted (retention, its account).
 */
export const jobCredentials = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('job_items').addColumn('credentials_sealed', 'text').execute();
    // The sweep clears those of ended items: a partial index keeps that off the whole table.
    await db.schema
      .createIndex('job_items_credentials')
      .on('job_items')
      .columns(['job_id', 'idx'])
      .where(sql.ref('credentials_sealed'), 'is not', null)
      .execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('job_items_credentials').execute();
    await db.schema.alterTable('job_items').dropColumn('credentials_sealed').execute();
  },
};
