import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Tables } from './tables.js';

/** Opens (creating when missing) the SQLite file behind kysely. */
export function openSqlite(file: string): Kysely<Tables> {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  // WAL lets the CLI write while the server reads; busy_timeout makes the two wait for each
  // other's short write locks instead of failing with SQLITE_BUSY.
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  return new Kysely<Tables>({ dialect: new SqliteDialect({ database: db }) });
}
