import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createShotTableSql, shotNames } from '../../src/roles/shots-sql.js';
import { dropSchema, postgresTestUrl, uniqueSchema } from '../helpers/services.js';

const url = await postgresTestUrl();

/**
 * Compose starts its api and worker nodes together on a fresh database: each makes the remote
 * screenshots' schema and table at start. Unserialised, PostgreSQL answered one of them
 * "duplicate key value violates unique constraint pg_namespace_nspname_index" and that node
 * did not start (seen in `npm run image:compose`).
 */
describe('the remote screenshots table, made by nodes starting together', () => {
  const schemas: string[] = [];
  afterAll(async () => {
    if (url) for (const s of schemas) await dropSchema(url, s);
  });

  it.skipIf(!url)('is made once by eight nodes at once, every start succeeding', async () => {
    // Several fresh schemas: the race is a matter of timing, each round is one more chance.
    for (let round = 0; round < 5; round++) {
      const schema = uniqueSchema();
      schemas.push(schema);
      const clients = Array.from({ length: 8 }, () => new pg.Client({ connectionString: url }));
      await Promise.all(clients.map((c) => c.connect()));
      try {
        const sql = createShotTableSql(shotNames(schema), schema);
        const results = await Promise.allSettled(clients.map((c) => c.query(sql)));
        const failed = results.filter((r) => r.status === 'rejected').map((r) => String(r.reason));
        expect(failed).toEqual([]);
        const { rows } = await clients[0]!.query(
          `SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = $1`,
          [schema],
        );
        expect(rows[0].n).toBe(1);
      } finally {
        await Promise.all(clients.map((c) => c.end()));
      }
    }
  });
});
