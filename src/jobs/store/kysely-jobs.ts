import { randomBytes } from 'node:crypto';
import { type ExpressionBuilder, type Kysely, type Selectable, SqliteAdapter, sql } from 'kysely';
import { isUniqueViolation, transact } from '../../storage/kysely-store.js';
import type { Tables } from '../../storage/tables.js';
import type { JobEventType } from '../events.js';
import type { JobTables } from './tables.js';
import {
  ITEM_STATUSES,
  type ItemCounts,
  type ItemOutcome,
  type ItemRecord,
  type ItemStatus,
  type JobRecord,
  type JobStatus,
  type JobStore,
  type NewItem,
  type OutboxEvent,
} from './types.js';

type Db = Kysely<JobTables>;
/** Rows per INSERT: far below SQLite's 32,766 and PostgreSQL's 65,535 parameters. */
const BATCH = 500;
const LIVE_ITEM: ItemStatus[] = ['queued', 'running'];
const LIVE_JOB: JobStatus[] = ['queued', 'running'];

/** The job store over the service's database (SQLite or PostgreSQL, one query layer). */
export function createJobStore(base: Kysely<Tables>): JobStore {
  const db: Db = base.withTables<JobTables>() as unknown as Db;
  // PostgreSQL: several nodes lease outbox rows at once, so the lease skips rows another holds.
  // SQLite has one writer at a time: its UPDATE is already exclusive.
  const rowLocks = !(db.getExecutor().adapter instanceof SqliteAdapter);

  /** Writes an event to the outbox inside `tx` (the transaction of what caused it). */
  const owe = (
    tx: Db,
    e: { accountId: string; jobId: string; index: number | null; type: JobEventType },
    now: number,
  ) =>
    tx
      .insertInto('job_outbox')
      .values({
        id: `evt_${randomBytes(15).toString('base64url')}`,
        account_id: e.accountId,
        job_id: e.jobId,
        idx: e.index,
        type: e.type,
        created_at: now,
        claimed_by: null,
        claimed_until: null,
        failures: 0,
      })
      .execute();

  /**
   * The item's end in `tx`; false (nothing written) when it had ended already. On PostgreSQL the
   * job's row is locked first: two nodes settling a job's last two items at once each checked, in
   * endJobIfDone, a snapshot in which the other's item still ran, and neither ended the job (it
   * stayed "running" with every item settled; found in CI with failed items, which unlike
   * succeeded ones wrote nothing to the job's row). Behind the lock the second sees the first's
   * item ended. The job's row before its items, as cancelJob takes them, so the two cannot deadlock.
   */
  const endItem = async (tx: Db, jobId: string, index: number, outcome: ItemOutcome, now: number) => {
    if (rowLocks) await tx.selectFrom('jobs').select('id').where('id', '=', jobId).forUpdate().execute();
    const set =
      outcome.status === 'succeeded'
        ? {
            status: 'succeeded',
            error: null,
            file: outcome.result.file,
            content_type: outcome.result.contentType,
            bytes: outcome.result.bytes,
            etag: outcome.result.etag,
            width: outcome.result.width,
            height: outcome.result.height,
            completed_at: now,
          }
        : { status: 'failed', error: outcome.error, completed_at: now };
    const result = await tx
      .updateTable('job_items')
      .set(set)
      .where('job_id', '=', jobId)
      .where('idx', '=', index)
      .where('status', 'in', LIVE_ITEM)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;
    if (outcome.status === 'succeeded') {
      // In the same transaction as the item: the byte count moves exactly when the item does.
      await tx
        .updateTable('jobs')
        .set((eb) => ({ bytes: eb('bytes', '+', outcome.result.bytes) }))
        .where('id', '=', jobId)
        .execute();
    }
    return true;
  };

  /** Ends the job in `tx` when no item waits or runs, with its event; its account when it did. */
  const endJobIfDone = async (tx: Db, jobId: string, now: number): Promise<string | undefined> => {
    const live = tx
      .selectFrom('job_items')
      .select('idx')
      .where('job_id', '=', jobId)
      .where('status', 'in', LIVE_ITEM);
    const succeeded = tx
      .selectFrom('job_items')
      .select('idx')
      .where('job_id', '=', jobId)
      .where('status', '=', 'succeeded');
    // One statement decides and writes, so two workers finishing the last two items at once
    // cannot both end the job (nor both miss it).
    const row = await tx
      .updateTable('jobs')
      .set((eb) => ({
        status: eb.case().when(eb.exists(succeeded)).then('completed').else('failed').end(),
        completed_at: now,
      }))
      .where('id', '=', jobId)
      .where('status', 'in', LIVE_JOB)
      .where('enqueued', '=', 1)
      .where((eb) => eb.not(eb.exists(live)))
      .returning(['account_id', 'status'])
      .executeTakeFirst();
    if (!row) return undefined;
    await owe(tx, { accountId: row.account_id, jobId, index: null, type: jobEventOf(row.status) }, now);
    return row.account_id;
  };

  const getJob = async (id: string, accountId?: string) => {
    let q = db.selectFrom('jobs').selectAll().where('id', '=', id);
    if (accountId !== undefined) q = q.where('account_id', '=', accountId);
    const row = await q.executeTakeFirst();
    return row && toJob(row);
  };
  const findByIdempotencyKey = async (accountId: string, key: string, after: number) => {
    const row = await db
      .selectFrom('jobs')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('idempotency_key', '=', key)
      .where('created_at', '>=', after)
      .executeTakeFirst();
    return row && toJob(row);
  };

  return {
    getJob,
    findByIdempotencyKey,

    async createJob(job, items, reuseAfter) {
      const insert = () =>
        transact(db, async (tx) => {
          if (job.idempotencyKey !== null) {
            // A key last used before the window is free again: its old job keeps no key.
            await tx
              .updateTable('jobs')
              .set({ idempotency_key: null })
              .where('account_id', '=', job.accountId)
              .where('idempotency_key', '=', job.idempotencyKey)
              .where('created_at', '<', reuseAfter)
              .execute();
          }
          await tx.insertInto('jobs').values(fromJob(job)).execute();
          let batch: NewItem[] = [];
          const flush = async () => {
            if (batch.length === 0) return;
            await tx
              .insertInto('job_items')
              .values(batch.map((i) => ({ ...fromItem(i), job_id: job.id, account_id: job.accountId })))
              .execute();
            batch = [];
          };
          for (const item of items) {
            batch.push(item);
            if (batch.length >= BATCH) await flush();
          }
          await flush();
        });
      try {
        await insert();
        return { created: true, job };
      } catch (err) {
        // Two submissions with one key raced: the other's job is the answer.
        if (job.idempotencyKey === null || !isUniqueViolation(err)) throw err;
        const existing = await findByIdempotencyKey(job.accountId, job.idempotencyKey, reuseAfter);
        if (!existing) throw err;
        return { created: false, job: existing };
      }
    },

    async markEnqueued(jobId) {
      await db.updateTable('jobs').set({ enqueued: 1 }).where('id', '=', jobId).execute();
    },

    async unenqueued(before) {
      const rows = await db
        .selectFrom('jobs')
        .selectAll()
        .where('enqueued', '=', 0)
        .where('created_at', '<', before)
        .where('status', 'in', LIVE_JOB)
        .orderBy('created_at')
        .limit(100)
        .execute();
      return rows.map(toJob);
    },

    async listJobs(accountId, { after, limit }) {
      let q = db.selectFrom('jobs').selectAll().where('account_id', '=', accountId);
      if (after) {
        q = q.where((eb) =>
          eb.or([
            eb('created_at', '<', after.createdAt),
            eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)]),
          ]),
        );
      }
      const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toJob);
    },

    async counts(jobId) {
      const rows = await db
        .selectFrom('job_items')
        .select(['status', sql<number | string>`count(*)`.as('n')])
        .where('job_id', '=', jobId)
        .groupBy('status')
        .execute();
      const counts = Object.fromEntries(ITEM_STATUSES.map((s) => [s, 0])) as ItemCounts;
      for (const r of rows) counts[r.status as ItemStatus] = Number(r.n);
      return counts;
    },

    async waitingOf(accountId) {
      const row = await db
        .selectFrom('job_items')
        .select(sql<number | string>`count(*)`.as('n'))
        .where('account_id', '=', accountId)
        .where('status', '=', 'queued')
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async bytesOf(accountId) {
      const row = await db
        .selectFrom('jobs')
        .select(sql<number | string | null>`sum(bytes)`.as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async getItem(jobId, index) {
      const row = await db
        .selectFrom('job_items')
        .selectAll()
        .where('job_id', '=', jobId)
        .where('idx', '=', index)
        .executeTakeFirst();
      return row && toItem(row);
    },

    async listItems(jobId, { status, after, limit }) {
      let q = db.selectFrom('job_items').selectAll().where('job_id', '=', jobId);
      if (status !== undefined) q = q.where('status', '=', status);
      if (after !== undefined) q = q.where('idx', '>', after);
      const rows = await q.orderBy('idx').limit(limit).execute();
      return rows.map(toItem);
    },

    async claimItem(jobId, index, now) {
      // RETURNING (SQLite ≥ 3.35, PostgreSQL): one statement claims and reads the item.
      const row = await db
        .updateTable('job_items')
        .set((eb) => ({ status: 'running', attempts: eb('attempts', '+', 1), started_at: now }))
        .where('job_id', '=', jobId)
        .where('idx', '=', index)
        .where('status', 'in', LIVE_ITEM)
        .returningAll()
        .executeTakeFirst();
      return row && toItem(row);
    },

    async releaseItem(jobId, index) {
      await db
        .updateTable('job_items')
        .set((eb) => ({ status: 'queued', attempts: eb('attempts', '-', 1), started_at: null }))
        .where('job_id', '=', jobId)
        .where('idx', '=', index)
        .where('status', '=', 'running')
        .execute();
    },

    async finishItem(jobId, index, outcome, now) {
      return transact(db, (tx) => endItem(tx, jobId, index, outcome, now));
    },

    async settleItem(jobId, index, outcome, now, opts) {
      return transact(db, async (tx) => {
        if (!(await endItem(tx, jobId, index, outcome, now))) return { stored: false, ended: false };
        if (opts.itemEvent) {
          const type = outcome.status === 'succeeded' ? 'render.succeeded' : 'render.failed';
          // The item's account: the job's, read within the transaction only when an event is owed.
          const job = await tx
            .selectFrom('jobs')
            .select('account_id')
            .where('id', '=', jobId)
            .executeTakeFirst();
          if (job) await owe(tx, { accountId: job.account_id, jobId, index, type }, now);
        }
        return { stored: true, ended: (await endJobIfDone(tx, jobId, now)) !== undefined };
      });
    },

    async claimEvents(node, now, until, limit) {
      const due = (eb: ExpressionBuilder<JobTables, 'job_outbox'>) =>
        eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]);
      const rows = await db
        .updateTable('job_outbox')
        .set({ claimed_by: node, claimed_until: until })
        .where('id', 'in', (eb) => {
          const q = eb.selectFrom('job_outbox').select('id').where(due).orderBy('created_at').limit(limit);
          return rowLocks ? q.forUpdate().skipLocked() : q;
        })
        // Checked again on the row itself (PostgreSQL re-reads a row another transaction just changed).
        .where(due)
        .returningAll()
        .execute();
      return rows.map(toEvent).sort((a, b) => a.createdAt - b.createdAt);
    },

    async deleteEvent(id) {
      await db.deleteFrom('job_outbox').where('id', '=', id).execute();
    },

    async retryEvent(id, until) {
      await db
        .updateTable('job_outbox')
        .set((eb) => ({ failures: eb('failures', '+', 1), claimed_until: until }))
        .where('id', '=', id)
        .execute();
    },

    async startJob(jobId, now) {
      const result = await db
        .updateTable('jobs')
        .set({ status: 'running', started_at: now })
        .where('id', '=', jobId)
        .where('status', '=', 'queued')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async finishJobIfDone(jobId, now) {
      const ended = await transact(db, (tx) => endJobIfDone(tx, jobId, now));
      return ended === undefined ? undefined : getJob(jobId);
    },

    async cancelJob(jobId, accountId, now) {
      const canceled = await transact(db, async (tx) => {
        const result = await tx
          .updateTable('jobs')
          .set({ status: 'canceled', completed_at: now })
          .where('id', '=', jobId)
          .where('account_id', '=', accountId)
          .where('status', 'in', LIVE_JOB)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) return false;
        await tx
          .updateTable('job_items')
          .set({ status: 'canceled', completed_at: now })
          .where('job_id', '=', jobId)
          .where('status', '=', 'queued')
          .execute();
        await owe(tx, { accountId, jobId, index: null, type: 'job.canceled' }, now);
        return true;
      });
      return canceled ? getJob(jobId) : undefined;
    },

    async failStale(before, error, now) {
      const rows = await db
        .updateTable('job_items')
        .set({ status: 'failed', error, completed_at: now })
        .where('status', '=', 'running')
        .where('started_at', '<', before)
        .returning('job_id')
        .execute();
      return [...new Set(rows.map((r) => r.job_id))];
    },

    async expired(now, limit) {
      const rows = await db
        .selectFrom('jobs')
        .selectAll()
        .where('expires_at', '<', now)
        .orderBy('expires_at')
        .limit(limit)
        .execute();
      return rows.map(toJob);
    },

    async sealedCredentials(jobId, index) {
      const row = await db
        .selectFrom('job_items')
        .select('credentials_sealed')
        .where('job_id', '=', jobId)
        .where('idx', '=', index)
        .executeTakeFirst();
      return row?.credentials_sealed ?? undefined;
    },

    async clearCredentials(jobId) {
      let q = db
        .updateTable('job_items')
        .set({ credentials_sealed: null })
        .where('credentials_sealed', 'is not', null)
        .where('status', 'not in', LIVE_ITEM);
      if (jobId !== undefined) q = q.where('job_id', '=', jobId);
      const result = await q.executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    async deleteJob(jobId) {
      await transact(db, async (tx) => {
        await tx.deleteFrom('job_items').where('job_id', '=', jobId).execute();
        await tx.deleteFrom('job_outbox').where('job_id', '=', jobId).execute();
        await tx.deleteFrom('jobs').where('id', '=', jobId).execute();
      });
    },
  };
}

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

/** The event of a job that ended with `status`. */
function jobEventOf(status: string): JobEventType {
  return status === 'completed' ? 'job.completed' : status === 'failed' ? 'job.failed' : 'job.canceled';
}

function toEvent(r: Selectable<JobTables['job_outbox']>): OutboxEvent {
  return {
    id: r.id,
    accountId: r.account_id,
    jobId: r.job_id,
    index: r.idx === null ? null : Number(r.idx),
    type: r.type as JobEventType,
    createdAt: Number(r.created_at),
    failures: Number(r.failures),
  };
}

function toJob(r: Selectable<JobTables['jobs']>): JobRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    status: r.status as JobStatus,
    total: Number(r.total),
    webhook: r.webhook,
    metadata: r.metadata === null ? null : (JSON.parse(r.metadata) as Record<string, unknown>),
    idempotencyKey: r.idempotency_key,
    enqueued: Number(r.enqueued) === 1,
    bytes: Number(r.bytes),
    createdAt: Number(r.created_at),
    startedAt: num(r.started_at),
    completedAt: num(r.completed_at),
    expiresAt: Number(r.expires_at),
  };
}

function fromJob(j: JobRecord): JobTables['jobs'] {
  return {
    id: j.id,
    account_id: j.accountId,
    status: j.status,
    total: j.total,
    webhook: j.webhook,
    metadata: j.metadata === null ? null : JSON.stringify(j.metadata),
    idempotency_key: j.idempotencyKey,
    enqueued: j.enqueued ? 1 : 0,
    bytes: j.bytes,
    created_at: j.createdAt,
    started_at: j.startedAt,
    completed_at: j.completedAt,
    expires_at: j.expiresAt,
  };
}

function fromItem(i: NewItem): Omit<JobTables['job_items'], 'job_id' | 'account_id'> {
  return {
    idx: i.index,
    kind: i.kind,
    request: i.request,
    status: 'queued',
    error: null,
    attempts: 0,
    file: null,
    content_type: null,
    bytes: null,
    etag: null,
    width: null,
    height: null,
    started_at: null,
    completed_at: null,
    credentials_sealed: i.credentials ?? null,
  };
}

function toItem(r: Selectable<JobTables['job_items']>): ItemRecord {
  const done = r.status === 'succeeded' && r.file !== null && r.etag !== null;
  return {
    jobId: r.job_id,
    index: Number(r.idx),
    accountId: r.account_id,
    kind: r.kind as ItemRecord['kind'],
    request: r.request,
    status: r.status as ItemStatus,
    error: r.error,
    attempts: Number(r.attempts),
    result: done
      ? {
          file: r.file as string,
          contentType: r.content_type ?? 'image/png',
          bytes: Number(r.bytes),
          etag: r.etag as string,
          width: Number(r.width),
          height: Number(r.height),
        }
      : null,
    startedAt: num(r.started_at),
    completedAt: num(r.completed_at),
  };
}
