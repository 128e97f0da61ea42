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
 * `prepare` (the migrations) runs before the pool is handed out, under an advisory lock:
 * nodes that start together would otherwise race on CREATE SCHEMA IF NOT EXISTS and on the
 * migrator's own tables (PostgreSQL answers such races with a unique violation).
 */
export async function openPostgres(
  url: string,
  schema: string,
  onIdleError: (err: Error) => void = () => {},
  prepare: (db: Kysely<Tables>) => Promise<void> = async () => {},
): Promise<Kysely<Tables>> {
  if (!SCHEMA.test(schema)) {
    throw new Error(`database schema must be lower-case letters, digits and _ (got "${schema}")`);
  }
  const setup = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await setup.connect();
  try {
    await setup.query('SELECT pg_advisory_lock(hashtext($1))', [`cardshot:setup:${schema}`]);
    await setup.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    const pool = new pg.Pool({
      connectionString: url,
      options: `-c search_path="${schema}"`,
      types,
      max: 10,
      connectionTimeoutMillis: 5000,
      idleTimeoutMillis: 30_000,
      // A connection the network dropped silently is noticed by the kernel, not never.
      keepAlive: true,
    });
    // A client losing its connection must not crash the process, idle (the pool's 'error')
    // or checked out: a query hung on a black-holed connection that is then cut makes its
    // client emit 'error' while no pool listener is attached (pg-pool removes its own while a
    // client is lent out), and an 'error' nobody listens to ends the process. The query
    // itself fails with the same error, and the pool drops the dead client when it is released.
    // Each client's own listener reports it; the pool re-emits an idle client's error, which
    // must have a listener too.
    pool.on('error', () => {});
    pool.on('connect', (client) => {
      client.on('error', (err) => onIdleError(err));
    });
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
    try {
      await prepare(db);
    } catch (err) {
      await db.destroy();
      throw err;
    }
    return db;
  } finally {
    // Ending the session releases the advisory lock too.
    await setup.end().catch(() => {});
  }
}
