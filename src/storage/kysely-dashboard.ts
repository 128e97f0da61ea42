import type { Kysely, Selectable } from 'kysely';
import type { DashboardStore, InviteRecord, SessionRecord } from './store.js';
import type { Tables } from './tables.js';

/** The dashboard half of the kysely store (sessions, passwords, invites, form tokens). */
export function createDashboardStore(db: Kysely<Tables>): DashboardStore {
  return {
    async getAccountByEmail(email) {
      const r = await db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirst();
      return r && { id: r.id, name: r.name, email: r.email, plan: r.plan, createdAt: r.created_at };
    },

    async setPassword(accountId, hash, at) {
      await db
        .insertInto('passwords')
        .values({ account_id: accountId, hash, updated_at: at })
        .onConflict((oc) => oc.column('account_id').doUpdateSet({ hash, updated_at: at }))
        .execute();
    },

    async getPassword(accountId) {
      const r = await db
        .selectFrom('passwords')
        .select('hash')
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return r?.hash;
    },

    async insertInvite(i) {
      await db
        .insertInto('invites')
        .values({
          hash: i.hash,
          account_id: i.accountId,
          created_at: i.createdAt,
          expires_at: i.expiresAt,
          used_at: i.usedAt,
        })
        .execute();
    },

    async getInvite(hash) {
      const r = await db.selectFrom('invites').selectAll().where('hash', '=', hash).executeTakeFirst();
      return r && toInvite(r);
    },

    async useInvite(hash, now) {
      // One conditional UPDATE: of two racing requests, only one sees a row change.
      const result = await db
        .updateTable('invites')
        .set({ used_at: now })
        .where('hash', '=', hash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return undefined;
      const r = await db
        .selectFrom('invites')
        .select('account_id')
        .where('hash', '=', hash)
        .executeTakeFirst();
      return r?.account_id;
    },

    async voidInvitesOf(accountId, now) {
      const result = await db
        .updateTable('invites')
        .set({ used_at: now })
        .where('account_id', '=', accountId)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async insertSession(s) {
      await db
        .insertInto('sessions')
        .values({
          hash: s.hash,
          account_id: s.accountId,
          created_at: s.createdAt,
          last_seen_at: s.lastSeenAt,
          expires_at: s.expiresAt,
        })
        .execute();
    },

    async getSession(hash) {
      const r = await db.selectFrom('sessions').selectAll().where('hash', '=', hash).executeTakeFirst();
      return r && toSession(r);
    },

    async touchSession(hash, at) {
      await db
        .updateTable('sessions')
        .set({ last_seen_at: at })
        .where('hash', '=', hash)
        .where('last_seen_at', '<', at)
        .execute();
    },

    async deleteSession(hash) {
      await db.deleteFrom('sessions').where('hash', '=', hash).execute();
    },

    async deleteSessionsOf(accountId) {
      const r = await db.deleteFrom('sessions').where('account_id', '=', accountId).executeTakeFirst();
      return Number(r.numDeletedRows);
    },

    async purgeExpired(now, idleBefore) {
      await db
        .deleteFrom('sessions')
        .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<', idleBefore)]))
        .execute();
      await db.deleteFrom('invites').where('expires_at', '<=', now).execute();
    },

    async useFormToken(hash, at) {
      const r = await db
        .insertInto('form_tokens')
        .values({ hash, used_at: at })
        .onConflict((oc) => oc.column('hash').doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    async purgeFormTokens(before) {
      await db.deleteFrom('form_tokens').where('used_at', '<', before).execute();
    },
  };
}

function toInvite(r: Selectable<Tables['invites']>): InviteRecord {
  return {
    hash: r.hash,
    accountId: r.account_id,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    usedAt: r.used_at,
  };
}

function toSession(r: Selectable<Tables['sessions']>): SessionRecord {
  return {
    hash: r.hash,
    accountId: r.account_id,
    createdAt: r.created_at,
    lastSeenAt: r.last_seen_at,
    expiresAt: r.expires_at,
  };
}
