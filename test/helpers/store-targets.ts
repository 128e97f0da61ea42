import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { openStore } from '../../src/storage/open.js';
import type { Store } from '../../src/storage/store.js';
import { dropSchema, postgresTestUrl, uniqueSchema } from './services.js';

/** A database a store contract suite runs against: a real SQLite file, or PostgreSQL in its own schema. */
export interface StoreTarget {
  name: string;
  open(): Promise<Store>;
  /** Deletes an account row with plain SQL (the service has no account deletion yet). */
  deleteAccount(id: string): Promise<void>;
  cleanup(): Promise<void>;
}

/**
 * SQLite always; PostgreSQL when DATABASE_TEST_URL (or the machine's server) is there, as CI
 * has it. `prefix` names the temporary SQLite folder.
 */
export async function storeTargets(prefix: string): Promise<StoreTarget[]> {
  const pgUrl = await postgresTestUrl();
  let dir = '';
  const targets: StoreTarget[] = [
    {
      name: 'SQLite',
      async open() {
        dir ||= await mkdtemp(path.join(os.tmpdir(), `cardshot-${prefix}-`));
        return openStore({ databaseUrl: '', dataDir: dir, databaseSchema: 'public' });
      },
      async deleteAccount(id) {
        const db = new Database(path.join(dir, 'cardshot.sqlite'));
        try {
          db.pragma('foreign_keys = ON');
          db.prepare('DELETE FROM accounts WHERE id = ?').run(id);
        } finally {
          db.close();
        }
      },
      cleanup: () => (dir ? rm(dir, { recursive: true, force: true }) : Promise.resolve()),
    },
  ];
  if (pgUrl) {
    const schema = uniqueSchema();
    targets.push({
      name: 'PostgreSQL',
      open: () => openStore({ databaseUrl: pgUrl, dataDir: '/nonexistent', databaseSchema: schema }),
      async deleteAccount(id) {
        const client = new pg.Client({ connectionString: pgUrl });
        await client.connect();
        try {
          await client.query(`DELETE FROM "${schema}".accounts WHERE id = $1`, [id]);
        } finally {
          await client.end();
        }
      },
      cleanup: () => dropSchema(pgUrl, schema),
    });
  }
  return targets;
}
