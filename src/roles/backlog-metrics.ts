/**
 * What autoscaling reads (issue 31 §1): the cluster's backlog, from PostgreSQL, at scrape time.
 * Every node reports the same numbers (they are the queue's, not the node's), so a
 * HorizontalPodAutoscaler or KEDA may read any node, or the average of all:
 *   cardshot_backlog_waiting{queue}                  job items / screenshots waiting to start
 *   cardshot_backlog_oldest_waiting_seconds{queue}   how long the oldest of them has waited
 *   cardshot_backlog_waiting_by_plan{queue,plan}     job items waiting, by their account's plan
 * The node-local `cardshot_queue_waiting` stays what it was (this node's render queues).
 */

import pg from 'pg';
import { Gauge, type Registry } from 'prom-client';
import { ITEM_QUEUE } from '../jobs/worker.js';
import { shotNames, waitingSql } from './shots-sql.js';

/** Scrapes within this long share one read (three gauges, one round trip). */
const FRESH_MS = 1000;

interface Backlog {
  items: { waiting: number; oldest: number; byPlan: Array<{ plan: string; waiting: number }> };
  shots: { waiting: number; oldest: number };
}

/** Registers the backlog gauges on `registry`; `close()` ends its connection. */
export function registerBacklogMetrics(opts: {
  registry: Registry;
  connectionString: string;
  /** pg-boss's schema (the job table) and the remote screenshots' table. */
  queueSchema: string;
  /** The store's schema (accounts and their plans). */
  storeSchema: string;
  onError(err: unknown): void;
}): { close(): Promise<void> } {
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: 1,
    connectionTimeoutMillis: 3000,
    application_name: 'cardshot-metrics',
  });
  pool.on('error', () => {});
  const names = shotNames(opts.queueSchema);
  const q = `"${opts.queueSchema}"`;
  const itemsSql = `
    SELECT coalesce(a.plan, '(unknown)') AS plan, count(*)::int AS waiting,
      coalesce(extract(epoch FROM now() - min(j.created_on)), 0)::float8 AS oldest
    FROM ${q}.job j LEFT JOIN "${opts.storeSchema}".accounts a ON a.id = j.group_id
    WHERE j.name = $1 AND j.state < 'active' AND j.start_after <= now()
    GROUP BY 1`;

  let last: { at: number; read: Promise<Backlog> } | undefined;
  const read = (): Promise<Backlog> => {
    if (last && Date.now() - last.at < FRESH_MS) return last.read;
    const reading = (async (): Promise<Backlog> => {
      const [items, shots] = await Promise.all([
        pool.query<{ plan: string; waiting: number; oldest: number }>(itemsSql, [ITEM_QUEUE]).catch((err) => {
          // No job table yet (pg-boss not started on this database): nothing waits.
          if ((err as { code?: string }).code === '42P01') return { rows: [] };
          throw err;
        }),
        pool.query<{ waiting: number; oldest: number }>(waitingSql(names)).catch((err) => {
          if ((err as { code?: string }).code === '42P01') return { rows: [{ waiting: 0, oldest: 0 }] };
          throw err;
        }),
      ]);
      const byPlan = items.rows.map((r) => ({ plan: r.plan, waiting: r.waiting }));
      return {
        items: {
          waiting: byPlan.reduce((n, r) => n + r.waiting, 0),
          oldest: Math.max(0, ...items.rows.map((r) => r.oldest)),
          byPlan,
        },
        shots: { waiting: shots.rows[0]?.waiting ?? 0, oldest: shots.rows[0]?.oldest ?? 0 },
      };
    })();
    last = { at: Date.now(), read: reading };
    return reading;
  };
  /** A failed read leaves the gauges empty for this scrape (absent, not a wrong zero). */
  const safely = async (fill: (b: Backlog) => void) => {
    try {
      fill(await read());
    } catch (err) {
      opts.onError(err);
    }
  };

  new Gauge({
    name: 'cardshot_backlog_waiting',
    help: "Work waiting to start across every node (items: job items; screenshots: API nodes' screenshots for the workers).",
    labelNames: ['queue'],
    registers: [opts.registry],
    async collect() {
      this.reset();
      await safely((b) => {
        this.set({ queue: 'items' }, b.items.waiting);
        this.set({ queue: 'screenshots' }, b.shots.waiting);
      });
    },
  });
  new Gauge({
    name: 'cardshot_backlog_oldest_waiting_seconds',
    help: 'How long the oldest waiting task has waited, by queue (0 when none waits).',
    labelNames: ['queue'],
    registers: [opts.registry],
    async collect() {
      this.reset();
      await safely((b) => {
        this.set({ queue: 'items' }, b.items.oldest);
        this.set({ queue: 'screenshots' }, b.shots.oldest);
      });
    },
  });
  new Gauge({
    name: 'cardshot_backlog_waiting_by_plan',
    help: "Job items waiting to start across every node, by their account's plan.",
    labelNames: ['queue', 'plan'],
    registers: [opts.registry],
    async collect() {
      this.reset();
      await safely((b) => {
        for (const { plan, waiting } of b.items.byPlan) this.set({ queue: 'items', plan }, waiting);
      });
    },
  });
  return { close: () => pool.end().catch(() => {}) };
}
