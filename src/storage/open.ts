import { existsSync } from 'node:fs';
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import { ConfigError } from '../config/load.js';
import { guardStore } from './breaker.js';
import { postgresConnectFailure, sqliteOpenFailure } from './connect-error.js';
import { createKyselyStore, migrate } from './kysely-store.js';
import { migrationProvider } from './migrations/index.js';
import { openPostgres } from './postgres.js';
import type { StorageConfig } from './settings.js';
import { openSqlite } from './sqlite.js';
import type { Store } from './store.js';
import type { Tables } from './tables.js';

/** Where the store lives, from DATABASE_URL (empty: the SQLite file in the data dir). */
export function describeDatabase(config: Pick<StorageConfig, 'databaseUrl' | 'dataDir'>): {
  kind: Store['kind'];
  location: string;
} {
  const url = config.databaseUrl.trim();
  if (url === '') return { kind: 'sqlite', location: path.join(config.dataDir, 'cardshot.sqlite') };
  if (/^postgres(ql)?:\/\//i.test(url)) return { kind: 'postgres', location: url };
  if (/^sqlite:/i.test(url)) return { kind: 'sqlite', location: url.replace(/^sqlite:(\/\/)?/i, '') };
  throw new ConfigError(
    'DATABASE_URL must be empty (SQLite in the data dir), postgres://… or sqlite:<file> (got another scheme)',
  );
}

/** Opens the configured database, migrates it to the latest schema, and returns the store. */
export async function openStore(
  config: Pick<StorageConfig, 'databaseUrl' | 'dataDir' | 'databaseSchema'> &
    Partial<Pick<StorageConfig, 'databaseTimeoutMs'>>,
  onIdleError?: (err: Error) => void,
  log?: Logger,
): Promise<Store> {
  const where = describeDatabase(config);
  if (where.kind === 'postgres') {
    const db = await connect(where, config, onIdleError, (pg) => migrate(pg, config.databaseSchema));
    // A hung PostgreSQL answers 503 at once instead of holding every request (storage/breaker.ts).
    // SQLite is a file in this process: it cannot hang on a network.
    return guardStore(createKyselyStore(db, where.kind), {
      timeoutMs: config.databaseTimeoutMs ?? 3000,
      url: where.location,
      ...(log ? { log } : {}),
    });
  }
  const db = await connect(where, config);
  try {
    await migrate(db);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  return createKyselyStore(db, where.kind);
}

/**
 * Opens the database at `where` (pg runs `prepare` under its set-up lock). A failure to connect
 * is rethrown naming the setting at fault, as storage/connect-error.ts decides; anything else
 * (a migration failing) as it came.
 */
async function connect(
  where: ReturnType<typeof describeDatabase>,
  config: Pick<StorageConfig, 'databaseUrl' | 'databaseSchema'>,
  onIdleError?: (err: Error) => void,
  prepare?: (db: Kysely<Tables>) => Promise<void>,
): Promise<Kysely<Tables>> {
  if (where.kind === 'postgres') {
    return openPostgres(where.location, config.databaseSchema, onIdleError, prepare).catch((err: unknown) => {
      throw postgresConnectFailure(err, where.location) ?? err;
    });
  }
  try {
    return openSqlite(where.location);
  } catch (err) {
    const setting = config.databaseUrl.trim() === '' ? 'CARDSHOT_DATA_DIR' : 'DATABASE_URL';
    throw sqliteOpenFailure(err, where.location, setting);
  }
}

/** What `doctor` reports about the database, read without creating or migrating anything. */
export interface DatabaseReport {
  kind: Store['kind'];
  /** False when the SQLite file does not exist yet (the first start creates it). */
  exists: boolean;
  /** Migrations this version would run at the next start. */
  pending: string[];
  /** Migrations the database has that this version does not know (it was run by a newer Cardshot). */
  unknown: string[];
  /** The fingerprint of the secret the database was set up with, if any. */
  secretFingerprint: string | undefined;
  /** Milliseconds for one round trip. */
  pingMs: number;
}

/** Connects, pings and compares the applied migrations with this version's, changing nothing. */
export async function inspectDatabase(
  config: Pick<StorageConfig, 'databaseUrl' | 'dataDir' | 'databaseSchema'>,
): Promise<DatabaseReport> {
  const where = describeDatabase(config);
  if (where.kind === 'sqlite' && !existsSync(where.location)) {
    return {
      kind: 'sqlite',
      exists: false,
      pending: [],
      unknown: [],
      secretFingerprint: undefined,
      pingMs: 0,
    };
  }
  const db = await connect(where, config);
  try {
    const started = performance.now();
    await sql`select 1`.execute(db);
    const pingMs = performance.now() - started;
    const known = Object.keys(await migrationProvider.getMigrations());
    let applied: string[] = [];
    let fingerprint: string | undefined;
    try {
      const rows = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
      applied = rows.rows.map((r) => r.name);
      const meta = await sql<{
        value: string;
      }>`select value from meta where name = 'secret_fingerprint'`.execute(db);
      fingerprint = meta.rows[0]?.value;
    } catch {
      // No migration table yet: an empty database that the next start sets up.
    }
    return {
      kind: where.kind,
      exists: true,
      pending: known.filter((m) => !applied.includes(m)),
      unknown: applied.filter((m) => !known.includes(m)),
      secretFingerprint: fingerprint,
      pingMs,
    };
  } finally {
    await db.destroy();
  }
}
