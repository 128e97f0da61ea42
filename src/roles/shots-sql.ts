/**
 * The table and statements of the screenshots API nodes hand to workers (docs/architecture.md,
 * "How a screenshot travels between roles"). One UNLOGGED table in the queue's schema: a row is
 * a request while it waits or runs and its answer once done, and it lives seconds (deleted as the
 * API node reads the answer, or by the sweep). UNLOGGED: a 10 MB answer writes no WAL, and after
 * a crash of PostgreSQL the table comes back empty, which is right for requests whose callers
 * got an error meanwhile. The body's storage is EXTERNAL: a PNG does not compress, so PostgreSQL
 * is spared the attempt. Wake-ups are NOTIFYs (one channel for new work, one for answers), sent
 * by the same statement that writes the row, so they are delivered at its commit.
 */
import { createHash } from 'node:crypto';

/** The channel names and the workers' application_name for one deployment (the queue schema). */
export function shotNames(queueSchema: string) {
  const tag = createHash('sha256').update(queueSchema).digest('hex').slice(0, 12);
  return {
    table: `"${queueSchema}".remote_shots`,
    /** A task was added or handed back: a worker with a free slot claims it. */
    newChannel: `cardshot_shot_new_${tag}`,
    /** A task is done (payload: its id): the API node waiting for it reads the answer. */
    doneChannel: `cardshot_shot_done_${tag}`,
    /**
     * A worker's listening session carries this application_name: an API node counts the live
     * workers, and tells a worker that died (its session ended) from one that is busy, in
     * pg_stat_activity, with no heartbeat table.
     */
    workerApp: `cardshot-worker-${tag}`,
  };
}

export type ShotNames = ReturnType<typeof shotNames>;

/**
 * The schema and table, made by whichever node starts first. The statements of one query string
 * run as one transaction, which holds the advisory lock to its end: nodes starting together
 * (compose's api and worker nodes on a fresh database) otherwise raced on CREATE SCHEMA IF NOT
 * EXISTS, and PostgreSQL answers the loser with a unique violation (pg_namespace_nspname_index),
 * which stopped that node's start.
 */
export const createShotTableSql = (n: ShotNames, schema: string) => `
  SELECT pg_advisory_xact_lock(hashtext('cardshot:remote-shots:${schema}'));
  CREATE SCHEMA IF NOT EXISTS "${schema}";
  CREATE UNLOGGED TABLE IF NOT EXISTS ${n.table} (
    id uuid PRIMARY KEY,
    account text NOT NULL,
    state text NOT NULL DEFAULT 'waiting',
    payload jsonb NOT NULL,
    deadline timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    worker_pid integer,
    attempts integer NOT NULL DEFAULT 0,
    meta jsonb,
    body bytea
  );
  ALTER TABLE ${n.table} ALTER COLUMN body SET STORAGE EXTERNAL;
  CREATE INDEX IF NOT EXISTS remote_shots_waiting ON ${n.table} (created_at) WHERE state = 'waiting';`;

/**
 * Adds a task if a worker is connected ($5: their application_name), and wakes the workers.
 * No row back: no worker runs, so the API node answers 503 at once instead of at its time-out.
 */
export const enqueueSql = (n: ShotNames) => `
  WITH added AS (
    INSERT INTO ${n.table} (id, account, payload, deadline)
    SELECT $1, $2, $3, now() + $4 * interval '1 millisecond'
    WHERE EXISTS (SELECT 1 FROM pg_stat_activity WHERE application_name = $5)
    RETURNING id
  )
  SELECT id, pg_notify('${n.newChannel}', '') FROM added`;

/** A worker claims the oldest waiting tasks, at most $2, for its listening session $1. */
export const claimSql = (n: ShotNames) => `
  UPDATE ${n.table} SET state = 'running', worker_pid = $1, attempts = attempts + 1
  WHERE id IN (
    SELECT id FROM ${n.table} WHERE state = 'waiting' AND deadline > now()
    ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED
  )
  RETURNING id, payload, attempts, (extract(epoch FROM deadline - now()) * 1000)::float8 AS remaining_ms`;

/**
 * The answer of a task this worker still holds (the API node may have given up and deleted it:
 * then nothing is written). The payload (sealed credentials included) goes with the answer.
 */
export const finishSql = (n: ShotNames) => `
  WITH done AS (
    UPDATE ${n.table} SET state = 'done', meta = $2, body = $3, payload = '{}'::jsonb
    WHERE id = $1 AND state = 'running' AND worker_pid = $4
    RETURNING id
  )
  SELECT pg_notify('${n.doneChannel}', id::text) FROM done`;

/** A stopping worker hands back the tasks it holds (another worker takes them). */
export const handBackSql = (n: ShotNames) => `
  WITH back AS (
    UPDATE ${n.table} SET state = 'waiting', worker_pid = NULL
    WHERE id = ANY($1::uuid[]) AND state = 'running' AND worker_pid = $2
    RETURNING id
  )
  SELECT pg_notify('${n.newChannel}', '') FROM back`;

/** The API node takes the answer and deletes the row in one step. */
export const collectSql = (n: ShotNames) =>
  `DELETE FROM ${n.table} WHERE id = $1 AND state = 'done' RETURNING meta, body`;

/** The API node gave up (time-out, client gone): the task never runs, or its answer is dropped. */
export const abandonSql = (n: ShotNames) => `DELETE FROM ${n.table} WHERE id = $1`;

/**
 * A waiting task's state and whether the worker holding it is still connected; checked while an
 * API node waits, so a worker killed mid-capture is noticed in about a second.
 */
export const watchSql = (n: ShotNames) => `
  SELECT t.state, t.worker_pid, t.attempts,
    (t.worker_pid IS NULL OR EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = t.worker_pid)) AS alive,
    EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.application_name = $2) AS workers
  FROM ${n.table} t WHERE t.id = $1`;

/** A task whose worker died goes back to waiting (once per death: the pid must still match). */
export const requeueSql = (n: ShotNames) => `
  WITH back AS (
    UPDATE ${n.table} SET state = 'waiting', worker_pid = NULL
    WHERE id = $1 AND state = 'running' AND worker_pid = $2
    RETURNING id
  )
  SELECT pg_notify('${n.newChannel}', '') FROM back`;

/** Rows nobody will read (their API node died): gone a minute past their deadline. */
export const sweepSql = (n: ShotNames) =>
  `DELETE FROM ${n.table} WHERE deadline < now() - interval '60 seconds'`;

/** Waiting tasks and the oldest one's age, for /metrics. */
export const waitingSql = (n: ShotNames) => `
  SELECT count(*)::int AS waiting, coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS oldest
  FROM ${n.table} WHERE state = 'waiting'`;
