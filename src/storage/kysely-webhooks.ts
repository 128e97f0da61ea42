import type { Kysely, Selectable } from 'kysely';
import type {
  AttemptRecord,
  EndpointRecord,
  MessageRecord,
  MessageStatus,
  WebhookStore,
} from '../webhooks/store.js';
import type { Tables } from './tables.js';

/** The webhooks half of the kysely store: endpoints, messages and attempts. */
export function createWebhookStore(db: Kysely<Tables>): WebhookStore {
  return {
    async insertEndpoint(e) {
      await db.insertInto('webhook_endpoints').values(fromEndpoint(e)).execute();
    },

    async listEndpoints(accountId) {
      const rows = await db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('account_id', '=', accountId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toEndpoint);
    },

    async getEndpoint(accountId, id) {
      const r = await db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return r && toEndpoint(r);
    },

    async countEndpoints(accountId) {
      const r = await db
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },

    async deleteEndpoint(accountId, id) {
      const r = await db
        .deleteFrom('webhook_endpoints')
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },

    async setEndpointSecrets(accountId, id, s) {
      const r = await db
        .updateTable('webhook_endpoints')
        .set({
          secret_sealed: s.secretSealed,
          previous_sealed: s.previousSealed,
          previous_until: s.previousUntil,
        })
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },

    async disableEndpoint(id, at, reason) {
      await db
        .updateTable('webhook_endpoints')
        .set({ disabled_at: at, disabled_reason: reason })
        .where('id', '=', id)
        .where('disabled_at', 'is', null)
        .execute();
    },

    async insertMessage(m) {
      await db
        .insertInto('webhook_messages')
        .values({
          id: m.id,
          endpoint_id: m.endpointId,
          account_id: m.accountId,
          type: m.type,
          body: m.body,
          created_at: m.createdAt,
          status: m.status,
          attempts: m.attempts,
          series_started_at: m.seriesStartedAt,
          next_attempt_at: m.nextAttemptAt,
        })
        .execute();
    },

    async getMessage(accountId, id) {
      const r = await db
        .selectFrom('webhook_messages')
        .selectAll()
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return r && toMessage(r);
    },

    async updateMessage(id, u) {
      await db
        .updateTable('webhook_messages')
        .set({
          status: u.status,
          next_attempt_at: u.nextAttemptAt,
          ...(u.attempts !== undefined ? { attempts: u.attempts } : {}),
          ...(u.seriesStartedAt !== undefined ? { series_started_at: u.seriesStartedAt } : {}),
        })
        .where('id', '=', id)
        .execute();
    },

    async countPendingMessages(accountId) {
      const r = await db
        .selectFrom('webhook_messages')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('account_id', '=', accountId)
        .where('status', '=', 'pending')
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },

    async listMessages(endpointId, { limit, before }) {
      let q = db.selectFrom('webhook_messages').selectAll().where('endpoint_id', '=', endpointId);
      if (before) {
        q = q.where((eb) =>
          eb.or([
            eb('created_at', '<', before.createdAt),
            eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)]),
          ]),
        );
      }
      const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toMessage);
    },

    async listOverdueMessages(before, limit) {
      const rows = await db
        .selectFrom('webhook_messages')
        .selectAll()
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<', before)
        .orderBy('next_attempt_at')
        .limit(limit)
        .execute();
      return rows.map(toMessage);
    },

    async insertAttempt(a) {
      await db
        .insertInto('webhook_attempts')
        .values({
          id: a.id,
          message_id: a.messageId,
          endpoint_id: a.endpointId,
          account_id: a.accountId,
          attempt: a.attempt,
          at: a.at,
          duration_ms: a.durationMs,
          status: a.status,
          response: a.response,
          error: a.error,
        })
        .execute();
    },

    async listAttempts(messageIds) {
      if (messageIds.length === 0) return [];
      const rows = await db
        .selectFrom('webhook_attempts')
        .selectAll()
        .where('message_id', 'in', [...messageIds])
        .orderBy('message_id')
        .orderBy('attempt')
        .orderBy('at')
        .execute();
      return rows.map(toAttempt);
    },

    async purgeMessages(before) {
      const r = await db.deleteFrom('webhook_messages').where('created_at', '<', before).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}

const nullableNumber = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function toEndpoint(r: Selectable<Tables['webhook_endpoints']>): EndpointRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    url: r.url,
    events: r.events === '' ? [] : r.events.split(','),
    secretSealed: r.secret_sealed,
    previousSealed: r.previous_sealed,
    previousUntil: nullableNumber(r.previous_until),
    disabledAt: nullableNumber(r.disabled_at),
    disabledReason: r.disabled_reason,
    createdAt: Number(r.created_at),
  };
}

function fromEndpoint(e: EndpointRecord): Tables['webhook_endpoints'] {
  return {
    id: e.id,
    account_id: e.accountId,
    url: e.url,
    events: e.events.join(','),
    secret_sealed: e.secretSealed,
    previous_sealed: e.previousSealed,
    previous_until: e.previousUntil,
    disabled_at: e.disabledAt,
    disabled_reason: e.disabledReason,
    created_at: e.createdAt,
  };
}

function toMessage(r: Selectable<Tables['webhook_messages']>): MessageRecord {
  return {
    id: r.id,
    endpointId: r.endpoint_id,
    accountId: r.account_id,
    type: r.type,
    body: r.body,
    createdAt: Number(r.created_at),
    status: r.status as MessageStatus,
    attempts: Number(r.attempts),
    seriesStartedAt: Number(r.series_started_at),
    nextAttemptAt: nullableNumber(r.next_attempt_at),
  };
}

function toAttempt(r: Selectable<Tables['webhook_attempts']>): AttemptRecord {
  return {
    id: r.id,
    messageId: r.message_id,
    endpointId: r.endpoint_id,
    accountId: r.account_id,
    attempt: Number(r.attempt),
    at: Number(r.at),
    durationMs: Number(r.duration_ms),
    status: nullableNumber(r.status),
    response: r.response,
    error: r.error,
  };
}
