import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/**
 * The SQLite queue's own file, `queue.sqlite` beside the store's `cardshot.sqlite` in the data
 * dir. A separate file because SQLite has one writer per file: every claim, renewal and
 * completion is a write, and in the store's file they would queue behind (and hold up) key
 * checks' `last_used_at` updates and usage counts. The queue holds ids and indexes, never
 * results, so nothing in it has to commit together with the store's rows (the jobs area writes
 * its item states idempotently).
 */
export const QUEUE_FILE = 'queue.sqlite';

/** Created idempotently at every open: the queue has no migrations of its own yet. */
const DDL = `
CREATE TABLE IF NOT EXISTS queue_queues (
  name TEXT PRIMARY KEY,
  retry_limit INTEGER NOT NULL,
  retry_delay_ms INTEGER NOT NULL,
  retry_backoff INTEGER NOT NULL,
  expire_ms INTEGER NOT NULL
);
-- A task exists from add to completion or dead letter; state is 'waiting' or 'running'.
-- attempt counts runs started, failures the runs whose handler threw.
CREATE TABLE IF NOT EXISTS queue_tasks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  queue TEXT NOT NULL,
  grp TEXT NOT NULL,
  data TEXT NOT NULL,
  key TEXT,
  state TEXT NOT NULL DEFAULT 'waiting',
  run_after INTEGER NOT NULL,
  attempt INTEGER NOT NULL DEFAULT 0,
  failures INTEGER NOT NULL DEFAULT 0,
  node TEXT,
  lease_until INTEGER,
  last_error TEXT,
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS queue_tasks_key ON queue_tasks (queue, key) WHERE key IS NOT NULL;
CREATE INDEX IF NOT EXISTS queue_tasks_take ON queue_tasks (queue, grp, state, id);
CREATE INDEX IF NOT EXISTS queue_tasks_lease ON queue_tasks (state, lease_until);
CREATE INDEX IF NOT EXISTS queue_tasks_due ON queue_tasks (queue, state, run_after);
-- The turn order: the group served longest ago goes next (served is a per-queue counter).
CREATE TABLE IF NOT EXISTS queue_groups (
  queue TEXT NOT NULL,
  grp TEXT NOT NULL,
  served INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (queue, grp)
);
CREATE TABLE IF NOT EXISTS queue_dead (
  id INTEGER PRIMARY KEY,
  queue TEXT NOT NULL,
  grp TEXT NOT NULL,
  data TEXT NOT NULL,
  key TEXT,
  attempt INTEGER NOT NULL,
  error TEXT,
  created_at INTEGER NOT NULL,
  died_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS queue_dead_by_queue ON queue_dead (queue, id);
`;

/** Opens (creating when missing) the queue's file with its tables. */
export function openQueueDatabase(file: string): Database.Database {
  // Owner-only like the store's file: task data names accounts and jobs.
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, 'a', 0o600));
  try {
    chmodSync(file, 0o600);
  } catch {
    // A file we do not own is used as it is.
  }
  const db = new Database(file);
  try {
    // WAL: readers (counts) never wait for a claim. NORMAL: a commit is not fsynced, so a power
    // cut may lose the last claims or completions; the worst outcome is a task run again, which
    // the jobs area tolerates by design, while each claim costs microseconds instead of an fsync.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    // Two nodes (processes) on one file wait for each other's short write transactions.
    db.pragma('busy_timeout = 5000');
    db.exec(DDL);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
