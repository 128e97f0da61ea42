import { randomUUID } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import type { Db, JobWithMetadata, PgBoss } from 'pg-boss';
import {
  advanceClockSql,
  type DeadEnvelope,
  type Envelope,
  lockAndGroupsSql,
  pruneGroupsSql,
} from './pgboss-sql.js';
import type { QueuePolicy, Task } from './types.js';
import { retryDelay, type TaskSource } from './worker-loop.js';

/** What settling a task needs of the pg-boss job it came from. */
interface Claim {
  jobId: string;
  /** pg-boss's attempt fence: a settle after the claim was lost (expired, taken again) does nothing. */
  retryCount: number;
  priority: number;
  key: string;
  envelope: Envelope;
}

const PRUNE_MS = 60_000;

/** The dead letters of queue `name` are pg-boss jobs of this queue, never worked. */
export const deadQueueOf = (name: string) => `${name}.dead`;

/**
 * The worker loop's view of one pg-boss queue.
 *
 * The group cap: pg-boss's `groupConcurrency` counts a group's active jobs inside its fetch, but
 * two fetches at once each count before the other commits (measured: a cap of 1 reached 4). So
 * every fetch of a queue runs inside a transaction holding an advisory lock on the queue: the
 * next fetch starts after the last one committed and counts its claims. Fetches are a few ms, so
 * serialising them costs little next to a render. The per-group caps go in as pg-boss tiers: each
 * task's tier is its group, and the tiers map each waiting group to `groupLimit(group)`.
 */
export function pgBossSource<D>(
  boss: PgBoss,
  schema: string,
  queue: string,
  policy: QueuePolicy,
  wake: EventEmitter,
): TaskSource<D> {
  const claims = new WeakMap<Task<D>, Claim>();
  let lastPrune = 0;
  const lockKey = `cardshot-queue:${schema}:${queue}`;

  const inTransaction = async <T>(fn: (db: Db) => Promise<T>): Promise<T> => {
    const tx = await boss.getDb().beginTransaction!();
    try {
      const result = await fn(tx.db);
      await tx.commit();
      return result;
    } catch (err) {
      await tx.rollback();
      throw err;
    }
  };

  const resend = (db: Db, task: Task<D>, claim: Claim, envelope: Envelope, startAfter?: number) =>
    Promise.all([
      boss.complete(queue, { id: claim.jobId, retryCount: claim.retryCount }, null, { db }),
      boss.insert(
        queue,
        [
          {
            data: envelope,
            priority: claim.priority,
            singletonKey: claim.key,
            group: { id: task.group, tier: task.group },
            ...(startAfter ? { startAfter: new Date(startAfter).toISOString() } : {}),
          },
        ],
        { db },
      ),
    ]);

  const settled = () => wake.emit(queue);

  return {
    async claim(max, groupLimit) {
      const jobs = await inTransaction(async (db) => {
        if (Date.now() - lastPrune > PRUNE_MS) {
          lastPrune = Date.now();
          await db.executeSql(pruneGroupsSql(schema), [queue]);
        }
        // One round trip: the lock, then the groups (held for the fetch alone, a few ms).
        const { rows } = await db.executeSql(lockAndGroupsSql(schema), [lockKey, queue]);
        const tiers: Record<string, number> = {};
        for (const grp of (rows[0]?.groups ?? []) as string[]) tiers[grp] = Math.max(0, groupLimit(grp));
        // A group missing from the tiers (added after the read above) waits for the next fetch.
        return (await boss.fetch(queue, {
          batchSize: max,
          includeMetadata: true,
          groupConcurrency: { default: 0, tiers },
          db,
        })) as JobWithMetadata<Envelope<D>>[];
      });
      if (jobs.length > 0) {
        // After the commit, not under the lock: the clock only moves forward (greatest), and an
        // add that reads it a moment early numbers its tasks a turn early at worst.
        const reached = Math.max(...jobs.map((j) => -j.priority));
        boss
          .getDb()
          .executeSql(advanceClockSql(schema), [queue, reached])
          .catch(() => {});
      }
      return jobs.map((job) => {
        const env = job.data;
        const task: Task<D> = {
          id: job.id,
          queue,
          group: job.groupId ?? '',
          data: env.d,
          attempt: env.r + job.retryCount + 1,
        };
        claims.set(task, {
          jobId: job.id,
          retryCount: job.retryCount,
          priority: job.priority,
          key: job.singletonKey ?? randomUUID(),
          envelope: env,
        });
        return task;
      });
    },
    async complete(task) {
      const claim = claims.get(task)!;
      await boss.complete(queue, { id: claim.jobId, retryCount: claim.retryCount });
      settled();
    },
    async fail(task, error) {
      const claim = claims.get(task)!;
      const message = error instanceof Error ? error.message : String(error);
      const failures = claim.envelope.f + 1;
      await inTransaction(async (db) => {
        if (failures > policy.retryLimit) {
          const dead: DeadEnvelope = { d: claim.envelope.d, g: task.group, e: message, a: task.attempt };
          await boss.complete(queue, { id: claim.jobId, retryCount: claim.retryCount }, null, { db });
          await boss.insert(deadQueueOf(queue), [{ data: dead }], { db });
        } else {
          // A retry is a new pg-boss job: pg-boss's own retries are kept for lost runs (expired
          // heartbeats), so a handler's failures count against retryLimit alone.
          const next = { ...claim.envelope, f: failures, r: task.attempt };
          await resend(db, task, claim, next, Date.now() + retryDelay(policy, failures));
        }
      });
      settled();
    },
    async release(task) {
      const claim = claims.get(task)!;
      await inTransaction((db) => resend(db, task, claim, { ...claim.envelope, r: task.attempt - 1 }));
      settled();
    },
    async renew(tasks) {
      const attempts = tasks.flatMap((t) => {
        const c = claims.get(t);
        return c ? [{ id: c.jobId, retryCount: c.retryCount }] : [];
      });
      if (attempts.length > 0) await boss.touch(queue, attempts);
    },
    onWake(fn) {
      const listener = () => fn();
      wake.on(queue, listener);
      return () => {
        wake.off(queue, listener);
      };
    },
    async nextDue() {
      const { rows } = await boss.getDb().executeSql(
        `SELECT extract(epoch FROM min(start_after)) * 1000 AS due FROM "${schema}".job
           WHERE name = $1 AND state < 'active' AND start_after > now()`,
        [queue],
      );
      const due = rows[0]?.due;
      return due == null ? undefined : Number(due);
    },
  };
}
