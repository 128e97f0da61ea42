import type { Kysely } from 'kysely';

/**
 * Webhook endpoints, their messages and every delivery attempt, each removed with its account
 * (and messages with their endpoint). Secrets are stored sealed (AES-GCM under a key derived
 * from the server secret): the service must sign with them again, so a hash would not do.
 */
export const webhooks = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('webhook_endpoints')
      .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
      .addColumn('account_id', 'varchar(40)', (c) =>
        c.notNull().references('accounts.id').onDelete('cascade'),
      )
      .addColumn('url', 'varchar(2048)', (c) => c.notNull())
      // Comma-separated event types: a short closed list, never queried by its parts.
      .addColumn('events', 'varchar(400)', (c) => c.notNull())
      .addColumn('secret_sealed', 'varchar(200)', (c) => c.notNull())
      .addColumn('previous_sealed', 'varchar(200)')
      .addColumn('previous_until', 'bigint')
      .addColumn('disabled_at', 'bigint')
      .addColumn('disabled_reason', 'varchar(200)')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('webhook_endpoints_account_id')
      .on('webhook_endpoints')
      .column('account_id')
      .execute();

    await db.schema
      .createTable('webhook_messages')
      .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
      .addColumn('endpoint_id', 'varchar(40)', (c) =>
        c.notNull().references('webhook_endpoints.id').onDelete('cascade'),
      )
      .addColumn('account_id', 'varchar(40)', (c) => c.notNull())
      .addColumn('type', 'varchar(40)', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('status', 'varchar(20)', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('series_started_at', 'bigint', (c) => c.notNull())
      .addColumn('next_attempt_at', 'bigint')
      .execute();
    // The delivery log pages by endpoint, newest first; the waiting bound counts by account.
    await db.schema
      .createIndex('webhook_messages_endpoint')
      .on('webhook_messages')
      .columns(['endpoint_id', 'created_at', 'id'])
      .execute();
    await db.schema
      .createIndex('webhook_messages_account_status')
      .on('webhook_messages')
      .columns(['account_id', 'status'])
      .execute();
    await db.schema
      .createIndex('webhook_messages_due')
      .on('webhook_messages')
      .columns(['status', 'next_attempt_at'])
      .execute();
    await db.schema
      .createIndex('webhook_messages_created_at')
      .on('webhook_messages')
      .column('created_at')
      .execute();

    await db.schema
      .createTable('webhook_attempts')
      .addColumn('id', 'varchar(40)', (c) => c.primaryKey())
      .addColumn('message_id', 'varchar(40)', (c) =>
        c.notNull().references('webhook_messages.id').onDelete('cascade'),
      )
      .addColumn('endpoint_id', 'varchar(40)', (c) => c.notNull())
      .addColumn('account_id', 'varchar(40)', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addColumn('status', 'integer')
      .addColumn('response', 'text', (c) => c.notNull())
      .addColumn('error', 'varchar(400)')
      .execute();
    await db.schema
      .createIndex('webhook_attempts_message')
      .on('webhook_attempts')
      .columns(['message_id', 'attempt'])
      .execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    for (const t of ['webhook_attempts', 'webhook_messages', 'webhook_endpoints'])
      await db.schema.dropTable(t).execute();
  },
};
