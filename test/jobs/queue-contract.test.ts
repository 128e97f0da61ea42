import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createJobQueue } from '../../src/jobs/queue/open.js';
import type { JobQueue, QueuePolicy, Task } from '../../src/jobs/queue/types.js';
import { startQueueNode } from '../helpers/queue-node.js';
import { dropSchema, postgresTestUrl, uniqueSchema } from '../helpers/services.js';
import { until } from '../helpers/wait.js';

// One suite over both engines: the SQLite queue (a real file in a temp data dir) and pg-boss
// (the real PostgreSQL, a schema of its own per run). Each test opens its own nodes on the
// same backing store and uses a queue of its own, so tests never see each other's tasks.
interface Target {
  name: string;
  storage: { databaseUrl: string; dataDir: string; databaseSchema: string };
  cleanup(): Promise<void>;
}

const pgUrl = await postgresTestUrl();
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-queue-'));
const targets: Target[] = [
  {
    name: 'SQLite',
    storage: { databaseUrl: '', dataDir, databaseSchema: 'public' },
    cleanup: () => rm(dataDir, { recursive: true, force: true }),
  },
];
if (pgUrl) {
  const schema = uniqueSchema();
  targets.push({
    name: 'pg-boss',
    storage: { databaseUrl: pgUrl, dataDir: '/nonexistent', databaseSchema: schema },
    async cleanup() {
      await dropSchema(pgUrl, schema);
      await dropSchema(pgUrl, `${schema}_pgboss`);
    },
  });
}

const policy: QueuePolicy = { retryLimit: 0, retryDelayMs: 50, retryBackoff: false, expireMs: 5000 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const queueName = () => `q_${randomBytes(4).toString('hex')}`;
const tasksOf = (group: string, n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({ group, data: { group, i: from + i } }));

describe.each(targets)('JobQueue on $name', (target) => {
  const opened: JobQueue[] = [];
  // Nothing here cuts the database: any storage error the workers swallowed is a bug.
  const errors: unknown[] = [];
  afterEach(() => {
    expect(errors).toEqual([]);
  });
  const open = async () => {
    const q = await createJobQueue(target.storage, {
      pollMs: 100,
      superviseIntervalSeconds: 1,
      onError: (e) => errors.push(e),
    });
    opened.push(q);
    return q;
  };
  afterAll(async () => {
    await Promise.all(opened.map((q) => q.close()));
    await target.cleanup();
  });

  it('runs each added task once, with its group, data and attempt 1', async () => {
    const q = await open();
    const name = queueName();
    await q.createQueue(name, policy);
    await q.createQueue(name, policy); // idempotent
    expect(q.kind).toBe(target.name === 'SQLite' ? 'sqlite' : 'pg-boss');
    expect(await q.add(name, tasksOf('acc_a', 20))).toBe(20);
    const seen: Task<{ group: string; i: number }>[] = [];
    await q.work<{ group: string; i: number }>(name, { concurrency: 4, groupLimit: () => 4 }, async (t) => {
      seen.push(t);
    });
    await until(() => seen.length === 20, 10_000);
    await sleep(200);
    expect(seen.length).toBe(20);
    expect(seen.map((t) => t.data.i).sort((a, b) => a - b)).toEqual([...Array(20).keys()]);
    expect(new Set(seen.map((t) => t.id)).size).toBe(20);
    expect(seen.every((t) => t.group === 'acc_a' && t.attempt === 1 && t.queue === name)).toBe(true);
    expect(await q.counts(name, 'acc_a')).toEqual({ waiting: 0, running: 0 });
  });

  it('adds a key once while its task exists, and again once it completed', async () => {
    const q = await open();
    const name = queueName();
    await q.createQueue(name, policy);
    const keyed = (i: number) => ({ group: 'acc_a', data: { i }, key: 'item-1' });
    expect(await q.add(name, [keyed(1), keyed(2)])).toBe(1);
    expect(await q.add(name, [keyed(3)])).toBe(0);
    expect(await q.counts(name, 'acc_a')).toEqual({ waiting: 1, running: 0 });
    const seen: number[] = [];
    const w = await q.work<{ i: number }>(name, { concurrency: 1, groupLimit: () => 1 }, async (t) => {
      seen.push(t.data.i);
    });
    await until(() => seen.length === 1, 10_000);
    await w.stop();
    expect(seen).toEqual([1]);
    expect(await q.add(name, [keyed(4)])).toBe(1);
  });

  it('streams an async iterable in, counting what it added', async () => {
    const q = await open();
    const name = queueName();
    await q.createQueue(name, policy);
    async function* gen() {
      for (let i = 0; i < 1200; i++) yield { group: 'acc_a', data: { i } };
    }
    expect(await q.add(name, gen())).toBe(1200);
    expect(await q.counts(name, 'acc_a')).toEqual({ waiting: 1200, running: 0 });
  });

  it('wakes its workers on add: 100 tasks one at a time take far less than a poll each', async () => {
    const q = await open();
    const name = queueName();
    await q.createQueue(name, policy);
    let done = 0;
    await q.work(name, { concurrency: 1, groupLimit: () => 1 }, async () => {
      done++;
    });
    await sleep(150);
    const started = Date.now();
    await q.add(name, tasksOf('acc_a', 100));
    await until(() => done === 100, 20_000);
    // Poll-bound (pg-boss defaults) is ~170 ms a task: 17 s. Woken and batched, well under 5 s.
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('takes waiting groups in turn: a hostile account 2,000 tasks ahead does not hold back 5 of another', async () => {
    const q = await open();
    const name = queueName();
    await q.createQueue(name, policy);
    await q.add(name, tasksOf('acc_hostile', 2000));
    await q.add(name, tasksOf('acc_victim', 5));
    const order: string[] = [];
    const w = await q.work<{ group: string }>(name, { concurrency: 2, groupLimit: () => 10 }, async (t) => {
      order.push(t.group);
      await sleep(2);
    });
    await until(() => order.filter((g) => g === 'acc_victim').length === 5, 20_000);
    await w.stop();
    // In turn: the victim's 5th task runs among the first dozen, not after 2,000.
    expect(order.lastIndexOf('acc_victim')).toBeLessThan(14);
  });

  it('holds a group cap across two nodes, each free to run more', async () => {
    const [a, b] = [await open(), await open()];
    const name = queueName();
    await a.createQueue(name, policy);
    await a.add(name, [...tasksOf('acc_pro', 24), ...tasksOf('acc_free', 12)]);
    const limits: Record<string, number> = { acc_pro: 3, acc_free: 1 };
    const now: Record<string, number> = { acc_pro: 0, acc_free: 0 };
    const max: Record<string, number> = { acc_pro: 0, acc_free: 0 };
    let done = 0;
    const handler = async (t: Task<unknown>) => {
      now[t.group]!++;
      max[t.group] = Math.max(max[t.group]!, now[t.group]!);
      await sleep(25);
      now[t.group]!--;
      done++;
    };
    const opts = { concurrency: 4, groupLimit: (g: string) => limits[g] ?? 0 };
    await Promise.all([a.work(name, opts, handler), b.work(name, opts, handler)]);
    await until(() => done === 36, 20_000);
    expect(max).toEqual({ acc_pro: 3, acc_free: 1 });
  });

  it('a task standing aside lends its slot, keeps its lease and completes only when its handler returns', async () => {
    const q = await open();
    const name = queueName();
    await q.createQueue(name, policy);
    await q.add(name, tasksOf('acc_a', 3));
    const started: number[] = [];
    const gates = new Map<number, () => void>();
    await q.work<{ i: number }>(
      name,
      { concurrency: 1, groupLimit: () => 10 },
      async (t, _signal, control) => {
        started.push(t.data.i);
        // Both stand aside; the worker has one slot, so only one may (the second keeps its slot).
        control.standAside();
        await new Promise<void>((resolve) => gates.set(t.data.i, resolve));
      },
    );
    await until(() => started.length === 2, 10_000);
    await sleep(300);
    expect(started.length).toBe(2);
    // Neither is completed while its handler waits: both still run (their leases held).
    expect(await q.counts(name, 'acc_a')).toEqual({ waiting: 1, running: 2 });
    gates.get(started[0]!)!();
    await sleep(300);
    expect(started.length).toBe(2);
    expect(await q.counts(name, 'acc_a')).toEqual({ waiting: 1, running: 1 });
    gates.get(started[1]!)!();
    await until(() => started.length === 3, 10_000);
    gates.get(started[2]!)!();
    for (let i = 0; i < 100 && (await q.counts(name, 'acc_a')).running > 0; i++) await sleep(50);
    expect(await q.counts(name, 'acc_a')).toEqual({ waiting: 0, running: 0 });
    expect(started.sort()).toEqual([0, 1, 2]);
  });

  it('counts a task standing aside in its group: a group at its cap gets no slot from it', async () => {
    const q = await open();
    const name = queueName();
    await q.createQueue(name, policy);
    await q.add(name, [...tasksOf('acc_a', 2), ...tasksOf('acc_b', 1)]);
    const started: string[] = [];
    let openHeld = () => {};
    const held = new Promise<void>((r) => {
      openHeld = r;
    });
    await q.work<{ group: string }>(name, { concurrency: 1, groupLimit: () => 1 }, async (t, _s, control) => {
      started.push(t.group);
      control.standAside();
      await held;
    });
    // acc_a's first task stands aside: the slot goes to acc_b, never to acc_a's second task.
    await until(() => started.length === 2, 10_000);
    await sleep(300);
    expect(started.sort()).toEqual(['acc_a', 'acc_b']);
    expect(await q.counts(name, 'acc_a')).toEqual({ waiting: 1, running: 1 });
    openHeld();
    await until(() => started.length === 3, 10_000);
  });

  it('does not start a task before its startAfter', async () => {
    const q = await open();
    const name = queueName();
    await q.createQueue(name, policy);
    const at = Date.now() + 700;
    await q.add(name, [{ group: 'acc_a', data: {}, startAfter: at }]);
    let ranAt = 0;
    await q.work(name, { concurrency: 1, groupLimit: () => 1 }, async () => {
      ranAt = Date.now();
    });
    expect(await q.counts(name, 'acc_a')).toEqual({ waiting: 1, running: 0 });
    await until(() => ranAt > 0, 10_000);
    expect(ranAt).toBeGreaterThanOrEqual(at);
  });

  it('retries with growing back-off, then keeps the task as a dead letter', async () => {
    const q = await open();
    const name = queueName();
    await q.createQueue(name, { retryLimit: 2, retryDelayMs: 200, retryBackoff: true, expireMs: 5000 });
    await q.add(name, [{ group: 'acc_a', data: { n: 1 } }]);
    const runs: Array<{ attempt: number; at: number }> = [];
    await q.work(name, { concurrency: 1, groupLimit: () => 1 }, async (t) => {
      runs.push({ attempt: t.attempt, at: Date.now() });
      throw new Error(`render failed on attempt ${t.attempt}`);
    });
    await until(() => runs.length === 3, 15_000);
    expect(runs.map((r) => r.attempt)).toEqual([1, 2, 3]);
    // Delays of 200 then 400 ms, each at least half its nominal value (jitter).
    expect(runs[1]!.at - runs[0]!.at).toBeGreaterThanOrEqual(95);
    expect(runs[2]!.at - runs[1]!.at).toBeGreaterThanOrEqual(195);
    let dead = await q.deadLetters!(name);
    for (let i = 0; i < 50 && dead.length === 0; i++) {
      await sleep(100);
      dead = await q.deadLetters!(name);
    }
    expect(dead).toEqual([
      expect.objectContaining({
        queue: name,
        group: 'acc_a',
        data: { n: 1 },
        error: 'render failed on attempt 3',
      }),
    ]);
    await sleep(600);
    expect(runs.length).toBe(3);
    expect(await q.counts(name, 'acc_a')).toEqual({ waiting: 0, running: 0 });
  });

  it('stop aborts a running task after the grace and puts it back for another node', async () => {
    const [a, b] = [await open(), await open()];
    const name = queueName();
    await a.createQueue(name, policy);
    await a.add(name, [{ group: 'acc_a', data: {} }]);
    let aborted = false;
    const w = await a.work(name, { concurrency: 1, groupLimit: () => 1 }, (_t, signal) => {
      return new Promise((_resolve, reject) =>
        signal.addEventListener('abort', () => {
          aborted = true;
          reject(signal.reason);
        }),
      );
    });
    for (let i = 0; i < 100 && (await a.counts(name, 'acc_a')).running === 0; i++) await sleep(50);
    await w.stop(100);
    expect(aborted).toBe(true);
    const seen: Task<unknown>[] = [];
    await b.work(name, { concurrency: 1, groupLimit: () => 1 }, async (t) => {
      seen.push(t);
    });
    await until(() => seen.length === 1, 10_000);
  });

  it('runs a task again on another node when the node running it is killed', {
    tags: ['process'],
  }, async () => {
    const name = queueName();
    const lease = { ...policy, expireMs: 1000 };
    const q = await open();
    await q.createQueue(name, lease);
    const node = await startQueueNode({ storage: target.storage, queue: name, policy: lease });
    try {
      await q.add(name, [{ group: 'acc_a', data: { page: 7 } }]);
      const first = await node.started;
      expect(first.attempt).toBe(1);
      await node.kill();
      const seen: Task<{ page: number }>[] = [];
      await q.work<{ page: number }>(name, { concurrency: 1, groupLimit: () => 1 }, async (t) => {
        seen.push(t);
      });
      // SQLite: the lease (1 s) runs out. pg-boss: its shortest heartbeat (10 s) plus a supervise pass.
      await until(() => seen.length === 1, 25_000);
      expect(seen[0]).toMatchObject({ id: first.id, attempt: 2, data: { page: 7 } });
    } finally {
      await node.kill();
    }
  });
});
