import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Tables } from './tables.js';

/** Opens (creating when missing) the SQLite file behind kysely. */
export function openSqlite(file: string): Kysely<Tables> {
  // Owner-only: the file holds key hashes and password hashes. SQLite gives its -wal and -shm
  // files the database file's mode, so setting it here covers all three.
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, 'a', 0o600));
  try {
    chmodSync(file, 0o600);
  } catch {
    // A file we do not own (a read-only mount, another user's volume) is used as it is.
  }
  const db = new Database(file);
  // WAL lets the CLI write while the server reads; busy_timeout makes the two wait for each
  // other's short write locks instead of failing with SQLITE_BUSY.
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  return new Kysely<Tables>({ dialect: new SqliteDialect({ database: db }) });
}
