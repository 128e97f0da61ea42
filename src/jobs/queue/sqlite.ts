import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { openQueueDatabase } from './sqlite-schema.js';
import { claimInTurn, reclaimLost, statements } from './sqlite-statements.js';
import type {
  DeadTask,
  GroupCounts,
  JobQueue,
  NewTask,
  QueuePolicy,
  QueueWorker,
  Task,
  TaskHandler,
  WorkOptions,
} from './types.js';
import { retryDelay, startWorker, type TaskSource, tracked } from './worker-loop.js';

/**
 * The embedded default's queue: tasks in a SQLite file, claimed in IMMEDIATE transactions. SQLite
 * has one writer at a time per file, so a claim that counts a group's running tasks and takes
 * one is exact across every process on the file (two "nodes"): the group cap cannot leak.
 *
 * Fair: a claim gives each task to the waiting group with the fewest tasks running (its cap
 * permitting), the one served longest ago among equals, which then goes to the back. So a
 * group's 5 tasks added behind another's 10,000 take the next slots that free up.
 */

export interface SqliteQueueOptions {
  /** The data dir; the queue lives in `queue.sqlite` there (see sqlite-schema.ts for why not the store's file). */
  file: string;
  /** Backstop poll for tasks another process added (this process's adds wake workers at once). */
  pollMs?: number;
  onError?(err: unknown): void;
}

/** Tasks inserted per transaction while adding. */
const ADD_BATCH = 500;
/** How often a claim looks for running tasks whose lease ran out. */
const RECLAIM_EVERY_MS = 250;
/** How often groups with no task left are forgotten. */
const PRUNE_MS = 10_000;

// Every JobQueue on one file in this process shares a wake-up channel: an add wakes the workers
// of a second instance too (the contract's "two nodes" in one test process).
const channels = new Map<string, EventEmitter>();
function channel(file: string): EventEmitter {
  let ch = channels.get(file);
  if (!ch) {
    ch = new EventEmitter();
    ch.setMaxListeners(0);
    channels.set(file, ch);
  }
  return ch;
}

/** Opens the SQLite queue on `opts.file` (created with its tables when missing). */
export function createSqliteQueue(opts: SqliteQueueOptions): JobQueue {
  const file = path.resolve(opts.file);
  const db = openQueueDatabase(file);
  const wake = channel(file);
  const node = randomUUID();
  const onError = opts.onError ?? (() => {});
  const policies = new Map<string, QueuePolicy>();
  const workers = new Set<QueueWorker>();
  let closed = false;

  const st = statements(db);
  const policyOf = (queue: string): QueuePolicy => {
    const known = policies.get(queue);
    if (known) return known;
    const row = st.policy.get(queue) as
      | { retry_limit: number; retry_delay_ms: number; retry_backoff: number; expire_ms: number }
      | undefined;
    if (!row) throw new Error(`queue "${queue}" does not exist: call createQueue first`);
    const policy = {
      retryLimit: row.retry_limit,
      retryDelayMs: row.retry_delay_ms,
      retryBackoff: row.retry_backoff === 1,
      expireMs: row.expire_ms,
    };
    policies.set(queue, policy);
    return policy;
  };

  const insertBatch = db.transaction((queue: string, batch: NewTask<unknown>[]) => {
    let added = 0;
    const now = Date.now();
    for (const t of batch) {
      const r = st.insert.run(
        queue,
        t.group,
        JSON.stringify(t.data),
        t.key ?? null,
        t.startAfter ?? now,
        now,
      );
      if (r.changes > 0) {
        added++;
        st.addGroup.run(queue, t.group);
      }
    }
    return added;
  });

  const source = <D>(queue: string): TaskSource<D> => {
    const policy = policyOf(queue);
    let lastPrune = 0;
    let lastReclaim = 0;
    const claim = db.transaction((max: number, groupLimit: (g: string) => number) => {
      const now = Date.now();
      // Lost runs are looked for a few times a second, not at each of a busy node's hundred
      // claims a second (three statements each): a dead node's task waits at most this longer.
      if (now - lastReclaim >= RECLAIM_EVERY_MS) {
        lastReclaim = now;
        reclaimLost(st, queue, now);
      }
      if (now - lastPrune > PRUNE_MS) {
        lastPrune = now;
        st.pruneGroups.run(queue);
      }
      return claimInTurn<D>(st, { queue, node, leaseUntil: now + policy.expireMs, now, max, groupLimit });
    });
    const settled = (task: Task<D>) => {
      wake.emit(queue);
      return task;
    };
    return {
      claim: async (max, groupLimit) => claim.immediate(max, groupLimit),
      async complete(task) {
        st.complete.run(Number(task.id), node, task.attempt);
        settled(task);
      },
      async fail(task, error) {
        const message = error instanceof Error ? error.message : String(error);
        db.transaction(() => {
          const row = st.mine.get(Number(task.id), node, task.attempt) as { failures: number } | undefined;
          if (!row) return; // lost the lease meanwhile: the node that holds it decides
          const failures = row.failures + 1;
          if (failures > policy.retryLimit) {
            st.bury.run({ diedAt: Date.now(), error: message, id: Number(task.id) });
            st.remove.run(Number(task.id));
          } else {
            st.retry.run(failures, Date.now() + retryDelay(policy, failures), message, Number(task.id));
          }
        }).immediate();
        settled(task);
      },
      async release(task) {
        st.release.run(Number(task.id), node, task.attempt);
        settled(task);
      },
      async renew(tasks) {
        const until = Date.now() + policy.expireMs;
        db.transaction(() => {
          for (const t of tasks) st.renew.run(until, Number(t.id), node, t.attempt);
        })();
      },
      onWake(fn) {
        const listener = () => fn();
        wake.on(queue, listener);
        return () => {
          wake.off(queue, listener);
        };
      },
      async nextDue() {
        const row = st.nextDue.get(queue, Date.now()) as { due: number | null };
        return row.due ?? undefined;
      },
    };
  };

  return {
    kind: 'sqlite',
    async createQueue(name, policy) {
      st.createQueue.run(
        name,
        policy.retryLimit,
        policy.retryDelayMs,
        policy.retryBackoff ? 1 : 0,
        policy.expireMs,
      );
      policies.delete(name);
    },
    async add(queue, tasks) {
      policyOf(queue);
      let added = 0;
      let batch: NewTask<unknown>[] = [];
      const flush = () => {
        added += insertBatch.immediate(queue, batch);
        batch = [];
        wake.emit(queue);
      };
      for await (const task of tasks as AsyncIterable<NewTask<unknown>>) {
        batch.push(task);
        if (batch.length >= ADD_BATCH) flush();
      }
      if (batch.length > 0) flush();
      return added;
    },
    async work<D>(queue: string, workOpts: WorkOptions, handler: TaskHandler<D>) {
      if (closed) throw new Error('the queue is closed');
      const policy = policyOf(queue);
      const worker = startWorker(source<D>(queue), workOpts, handler, {
        pollMs: opts.pollMs ?? 500,
        // Three renewals per lease: one missed (a stalled event loop) does not lose the task.
        renewMs: Math.max(20, Math.floor(policy.expireMs / 3)),
        onError,
      });
      return tracked(workers, worker);
    },
    async counts(queue, group): Promise<GroupCounts> {
      const row = st.counts.get(queue, group) as { waiting: number | null; running: number | null };
      return { waiting: row.waiting ?? 0, running: row.running ?? 0 };
    },
    async deadLetters(queue, limit = 100): Promise<DeadTask[]> {
      const rows = st.dead.all(queue, limit) as Array<{
        id: number;
        grp: string;
        data: string;
        attempt: number;
        error: string | null;
        died_at: number;
      }>;
      return rows.map((r) => ({
        id: String(r.id),
        queue,
        group: r.grp,
        data: JSON.parse(r.data),
        attempt: r.attempt,
        error: r.error ?? '',
        diedAt: r.died_at,
      }));
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...workers].map((w) => w.stop()));
      db.close();
    },
  };
}
