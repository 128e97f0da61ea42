import type { Db } from 'pg-boss';

/**
 * Cardshot's two small tables beside pg-boss's in its schema, and the SQL that reads pg-boss's
 * `job` table where its API has no call for it (a group's counts, the dead letters).
 *
 * Fair: each task is sent with a pg-boss `priority` of minus its virtual start: a group's tasks
 * count up from max(the group's next number, the queue's clock), and the clock moves to the
 * number of each task claimed. pg-boss fetches by priority, then creation, so waiting groups
 * take turns: 5 tasks added behind another group's 10,000 get the numbers the queue has reached
 * and interleave at once, while a group that was idle cannot jump ahead of work already due.
 */
export function createTablesSql(schema: string): string {
  // Run under the queue's start lock (pgboss.ts, oneNodeAtATime): two nodes starting at once on
  // an empty database would otherwise race in CREATE TABLE IF NOT EXISTS and one would fail with
  // a duplicate pg_type row (seen with two workers started together).
  return `
    CREATE TABLE IF NOT EXISTS "${schema}".cardshot_queue_groups (
      queue text NOT NULL,
      grp text NOT NULL,
      next_seq bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (queue, grp)
    );
    CREATE TABLE IF NOT EXISTS "${schema}".cardshot_queue_policy (
      queue text PRIMARY KEY,
      value jsonb NOT NULL
    );
    CREATE TABLE IF NOT EXISTS "${schema}".cardshot_queue_clock (
      queue text PRIMARY KEY,
      seq bigint NOT NULL DEFAULT 0
    );`;
}

/** The data pg-boss holds for one task: the caller's data and what a re-send must carry on. */
export interface Envelope<D = unknown> {
  d: D;
  /** Handler failures so far. */
  f: number;
  /** Runs before this pg-boss job (a retry is a new job; a lost run is the same job, retry_count + 1). */
  r: number;
  /** The caller's key (pg-boss's singletonKey holds a random one when the caller gave none). */
  k?: string;
}

/** What a dead letter's pg-boss job holds. */
export interface DeadEnvelope {
  d: unknown;
  g: string;
  e: string;
  a: number;
}

/** Reserves `n` numbers for `group`'s tasks; resolves to the first. */
export async function reserveSeqs(
  db: Db,
  schema: string,
  queue: string,
  group: string,
  n: number,
): Promise<number> {
  const { rows } = await db.executeSql(
    `INSERT INTO "${schema}".cardshot_queue_groups AS g (queue, grp, next_seq)
     VALUES ($1, $2, (SELECT coalesce(max(seq), 0) FROM "${schema}".cardshot_queue_clock WHERE queue = $1) + $3)
     ON CONFLICT (queue, grp) DO UPDATE SET next_seq = greatest(g.next_seq,
       (SELECT coalesce(max(seq), 0) FROM "${schema}".cardshot_queue_clock WHERE queue = $1)) + $3
     RETURNING next_seq - $3 AS first`,
    [queue, group, n],
  );
  return Number(rows[0].first);
}

/** Moves the queue's clock to `seq` (never back). */
export function advanceClockSql(schema: string): string {
  return `INSERT INTO "${schema}".cardshot_queue_clock AS c (queue, seq) VALUES ($1, $2)
    ON CONFLICT (queue) DO UPDATE SET seq = greatest(c.seq, excluded.seq)`;
}

/**
 * Takes the queue's fetch lock (until the transaction ends), and lists the groups of `queue`
 * that still have tasks, for the per-group caps of the fetch that follows.
 */
export function lockAndGroupsSql(schema: string): string {
  return `SELECT pg_advisory_xact_lock(hashtext($1)) AS locked,
    (SELECT coalesce(array_agg(grp), '{}') FROM "${schema}".cardshot_queue_groups WHERE queue = $2) AS groups`;
}

/** Forgets groups with no task left (their numbers restart from the clock when they come back). */
export function pruneGroupsSql(schema: string): string {
  return `DELETE FROM "${schema}".cardshot_queue_groups g WHERE queue = $1 AND NOT EXISTS (
    SELECT 1 FROM "${schema}".job j WHERE j.name = $1 AND j.group_id = g.grp AND j.state < 'completed')`;
}

export function countsSql(schema: string): string {
  return `SELECT count(*) FILTER (WHERE state < 'active')::int AS waiting,
      count(*) FILTER (WHERE state = 'active')::int AS running
    FROM "${schema}".job WHERE name = $1 AND group_id = $2 AND state <= 'active'`;
}

export function deadSql(schema: string): string {
  return `SELECT id, data, created_on FROM "${schema}".job WHERE name = $1 ORDER BY created_on DESC LIMIT $2`;
}

/** pg-boss's NOTIFY channel for `schema` (the expression its producer inlines). */
export function channelSql(): string {
  return `SELECT 'pgboss_' || left(encode(sha224($1::bytea), 'hex'), 24) AS channel`;
}

/** A queue's QueuePolicy as createQueue was given it (pg-boss's own options are derived from it). */
export function policySql(schema: string): string {
  return `SELECT value FROM "${schema}".cardshot_queue_policy WHERE queue = $1`;
}

export function savePolicySql(schema: string): string {
  return `INSERT INTO "${schema}".cardshot_queue_policy (queue, value) VALUES ($1, $2)
    ON CONFLICT (queue) DO UPDATE SET value = excluded.value`;
}
