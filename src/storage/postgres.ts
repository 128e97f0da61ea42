import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Tables } from './tables.js';

const INT8_OID = 20;

/** Millisecond times and counts fit a double exactly; pg would hand int8 back as strings. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID && format !== 'binary') return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format);
  },
};

const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * A pool on `url` whose connections use `schema` (created when missing), so the same
 * unqualified table names work in any schema: a shared database, or one schema per test run.
 */
export async function openPostgres(
  url: string,
  schema: string,
  onIdleError: (err: Error) => void = () => {},
): Promise<Kysely<Tables>> {
  if (!SCHEMA.test(schema)) {
    throw new Error(`database schema must be lower-case letters, digits and _ (got "${schema}")`);
  }
  const setup = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await setup.connect();
  try {
    await setup.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  } finally {
    await setup.end();
  }
  const pool = new pg.Pool({
    connectionString: url,
    options: `-c search_path="${schema}"`,
    types,
    max: 10,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection (the server restarted) must not crash the process.
  pool.on('error', onIdleError);
  return new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
}
