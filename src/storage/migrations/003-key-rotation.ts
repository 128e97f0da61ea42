import type { Kysely } from 'kysely';

/**
 * Which key replaced a rotated one. A key in its rotation grace period has an expiry that was
 * set by the rotation, not chosen by the owner; knowing it was rotated lets a second rotation
 * be refused instead of giving the new key that short grace deadline as its own expiry.
 */
export const keyRotation = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('api_keys').addColumn('replaced_by', 'varchar(40)').execute();
  },
};
