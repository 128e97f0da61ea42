import path from 'node:path';
import { ConfigError } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { createKyselyStore, migrate } from './kysely-store.js';
import { openPostgres } from './postgres.js';
import { openSqlite } from './sqlite.js';
import type { Store } from './store.js';

/** Where the store lives, from DATABASE_URL (empty: the SQLite file in the data dir). */
export function describeDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>): {
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
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'databaseSchema'>,
  onIdleError?: (err: Error) => void,
): Promise<Store> {
  const where = describeDatabase(config);
  if (where.kind === 'postgres') {
    const db = await openPostgres(where.location, config.databaseSchema, onIdleError, (pg) =>
      migrate(pg, config.databaseSchema),
    );
    return createKyselyStore(db, where.kind);
  }
  const db = openSqlite(where.location);
  try {
    await migrate(db);
  } catch (err) {
    await db.destroy();
    throw err;
  }
  return createKyselyStore(db, where.kind);
}
