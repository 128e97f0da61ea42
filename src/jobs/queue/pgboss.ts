import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import { deadQueueOf, pgBossSource } from './pgboss-source.js';
import {
  channelSql,
  countsSql,
  createTablesSql,
  type DeadEnvelope,
  deadSql,
  policySql,
  reserveSeqs,
  savePolicySql,
} from './pgboss-sql.js';
import type {
  DeadTask,
  GroupCounts,
  JobQueue,
  NewTask,
  QueuePolicy,
  QueueWorker,
  TaskHandler,
  WorkOptions,
} from './types.js';
import { startWorker, tracked } from './worker-loop.js';

export interface PgBossQueueOptions {
  connectionString: string;
  /** pg-boss's schema (its tables and Cardshot's two beside them). */
  schema: string;
  onError?(err: unknown): void;
  /** Backstop poll (ms): NOTIFY wakes the workers at once; this catches a missed one. */
  pollMs?: number;
  /**
   * How often pg-boss looks for jobs whose heartbeat stopped (their node died), in seconds. pg-boss
   * checks every 60 s by default; a lost render waiting a minute is a minute added to its job.
   */
  superviseIntervalSeconds?: number;
}

/** Runs lost with their node before pg-boss gives up on a task (its own retries count only those). */
export const LOST_RUNS_ALLOWED = 3;
/** pg-boss's shortest heartbeat: a lease shorter than this is rounded up to it. */
const MIN_HEARTBEAT_SECONDS = 10;
const ADD_BATCH = 500;
/** Dead letters are kept this long (pg-boss deletes waiting jobs past their retention). */
const DEAD_RETENTION_SECONDS = 30 * 24 * 3600;

/**
 * The queue on PostgreSQL: pg-boss 12 stores, expires and retries the tasks; Cardshot holds what
 * pg-boss did not in our measurements (the per-group cap across nodes, fair turns between groups:
 * see pgboss-source.ts and pgboss-sql.ts) and drives fetches itself, woken by pg-boss's NOTIFY on
 * insert, so a task waits for no poll.
 */
export async function createPgBossQueue(opts: PgBossQueueOptions): Promise<JobQueue> {
  const schema = opts.schema;
  const onError = opts.onError ?? (() => {});
  const boss = new PgBoss({
    connectionString: opts.connectionString,
    schema,
    // The listener is ours (below): pg-boss's own wakes only its work() workers, which we do not use.
    useListenNotify: false,
    schedule: false,
    // Both: a lost task is failed back to waiting by the monitor step of a supervise pass, and
    // pg-boss runs that step at most once per monitor interval (60 s by default).
    superviseIntervalSeconds: opts.superviseIntervalSeconds ?? 5,
    monitorIntervalSeconds: opts.superviseIntervalSeconds ?? 5,
    max: 6,
    application_name: 'cardshot-queue',
  });
  boss.on('error', onError);
  await oneNodeAtATime(opts.connectionString, `cardshot-queue-start:${schema}`, async () => {
    await boss.start();
    await boss.getDb().executeSql(createTablesSql(schema));
  });
  const db = boss.getDb();

  const wake = new EventEmitter();
  wake.setMaxListeners(0);
  const { rows } = await db.executeSql(channelSql(), [schema]);
  const listener = await db.listen!(
    rows[0].channel,
    (queue) => wake.emit(queue),
    // Reconnected after a drop: NOTIFYs sent meanwhile are lost, so every worker looks now.
    () => {
      for (const name of wake.eventNames()) wake.emit(name);
    },
  );

  const policies = new Map<string, QueuePolicy>();
  const workers = new Set<QueueWorker>();
  let closed = false;

  const policyOf = async (queue: string): Promise<QueuePolicy> => {
    const known = policies.get(queue);
    if (known) return known;
    const { rows: found } = await db.executeSql(policySql(schema), [queue]);
    if (!found[0]) throw new Error(`queue "${queue}" does not exist: call createQueue first`);
    policies.set(queue, found[0].value);
    return found[0].value;
  };

  const addBatch = async (queue: string, batch: NewTask<unknown>[]) => {
    const byGroup = new Map<string, NewTask<unknown>[]>();
    for (const t of batch) byGroup.set(t.group, [...(byGroup.get(t.group) ?? []), t]);
    const tx = await db.beginTransaction!();
    try {
      let added = 0;
      for (const [group, tasks] of byGroup) {
        const first = await reserveSeqs(tx.db, schema, queue, group, tasks.length);
        const ids = await boss.insert(
          queue,
          tasks.map((t, i) => ({
            data: { d: t.data, f: 0, r: 0, ...(t.key !== undefined ? { k: t.key } : {}) },
            priority: -(first + i),
            // The queue's policy makes a key unique while its task waits or runs; a task without
            // a key gets a random one, or it would share the empty key with every other.
            singletonKey: t.key ?? randomUUID(),
            group: { id: group, tier: group },
            ...(t.startAfter !== undefined ? { startAfter: new Date(t.startAfter).toISOString() } : {}),
          })),
          { db: tx.db, returnId: true },
        );
        added += ids?.length ?? 0;
      }
      await tx.commit();
      return added;
    } catch (err) {
      await tx.rollback();
      throw err;
    }
  };

  return {
    kind: 'pg-boss',
    async createQueue(name, policy) {
      const heartbeatSeconds = Math.max(MIN_HEARTBEAT_SECONDS, Math.ceil(policy.expireMs / 1000));
      const options = {
        // exclusive: a key is unique while its task is created, retried or active (the contract).
        policy: 'exclusive' as const,
        notify: true,
        // pg-boss's retries are only for lost runs; the handler's failures are re-sent by us.
        retryLimit: policy.retryLimit + LOST_RUNS_ALLOWED,
        retryDelay: 0,
        heartbeatSeconds,
        // A live node renews its heartbeat; this only bounds a task whose handler never returns.
        expireInSeconds: Math.max(3600, heartbeatSeconds * 6),
        deadLetter: deadQueueOf(name),
        deleteAfterSeconds: 3600,
      };
      const dead = { name: deadQueueOf(name), retentionSeconds: DEAD_RETENTION_SECONDS };
      if (!(await boss.getQueue(dead.name))) await boss.createQueue(dead.name, dead).catch(ignoreExists);
      if (await boss.getQueue(name)) {
        // The policy is fixed at creation; the rest follows the latest createQueue.
        const { policy: _fixed, ...changeable } = options;
        await boss.updateQueue(name, changeable);
      } else await boss.createQueue(name, options).catch(ignoreExists);
      await db.executeSql(savePolicySql(schema), [name, JSON.stringify(policy)]);
      policies.delete(name);
    },
    async add(queue, tasks) {
      await policyOf(queue);
      let added = 0;
      let batch: NewTask<unknown>[] = [];
      for await (const task of tasks as AsyncIterable<NewTask<unknown>>) {
        batch.push(task);
        if (batch.length >= ADD_BATCH) {
          added += await addBatch(queue, batch);
          batch = [];
        }
      }
      if (batch.length > 0) added += await addBatch(queue, batch);
      // NOTIFY reaches the other nodes; this node's workers are woken without the round trip.
      wake.emit(queue);
      return added;
    },
    async work<D>(queue: string, workOpts: WorkOptions, handler: TaskHandler<D>) {
      if (closed) throw new Error('the queue is closed');
      const policy = await policyOf(queue);
      const lease = Math.max(MIN_HEARTBEAT_SECONDS * 1000, policy.expireMs);
      const worker = startWorker(pgBossSource<D>(boss, schema, queue, policy, wake), workOpts, handler, {
        pollMs: opts.pollMs ?? 2000,
        renewMs: Math.floor(lease / 3),
        onError,
      });
      return tracked(workers, worker);
    },
    async counts(queue, group): Promise<GroupCounts> {
      const { rows: r } = await db.executeSql(countsSql(schema), [queue, group]);
      return { waiting: Number(r[0]?.waiting ?? 0), running: Number(r[0]?.running ?? 0) };
    },
    async deadLetters(queue, limit = 100): Promise<DeadTask[]> {
      const { rows: r } = await db.executeSql(deadSql(schema), [deadQueueOf(queue), limit]);
      return (
        r as Array<{ id: string; data: DeadEnvelope & { f?: number; r?: number }; created_on: Date }>
      ).map((row) => ({
        id: row.id,
        queue,
        group: row.data.g ?? '',
        data: row.data.d,
        attempt: row.data.a ?? (row.data.r ?? 0) + LOST_RUNS_ALLOWED + 1,
        // pg-boss copies a job it gave up on (lost too often) with its own envelope, no message.
        error: row.data.e ?? 'its node was lost too many times',
        diedAt: new Date(row.created_on).getTime(),
      }));
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...workers].map((w) => w.stop()));
      await listener.close().catch(onError);
      await boss.stop({ graceful: false, close: true, timeout: 1000 }).catch(onError);
    },
  };
}

function ignoreExists(err: unknown): void {
  // Two nodes creating the same queue at start: the second finds it made.
  if (!(err instanceof Error && /already exists|duplicate/i.test(err.message))) throw err;
}

/**
 * Runs `fn` while holding a session advisory lock named `name`: pg-boss installs and migrates
 * its schema when it starts, and a node started while another was part-way through that failed
 * its start twice in CI (`schema "…_pgboss" does not exist`). Behind the lock a node sees the
 * other's install committed and finds nothing to do. Ending the session frees the lock, also
 * when this process dies holding it.
 */
async function oneNodeAtATime(
  connectionString: string,
  name: string,
  fn: () => Promise<void>,
): Promise<void> {
  const client = new pg.Client({ connectionString, application_name: 'cardshot-queue-start' });
  client.on('error', () => {}); // a dropped connection fails the query below, or frees the lock
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
    await fn();
  } finally {
    await client.end().catch(() => {});
  }
}
