import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createJobQueue } from '../../src/jobs/queue/open.js';
import type { JobQueue } from '../../src/jobs/queue/types.js';
import { dropSchema, postgresTestUrl, uniqueSchema } from '../helpers/services.js';

// Nodes of a fresh deployment start together on an empty database: each opens the queue at the
// same moment. Before the tables were made under a lock, one of them failed with
// `duplicate key value violates unique constraint "pg_type_typname_nsp_index"`.
const url = await postgresTestUrl();

describe.skipIf(!url)('the pg-boss queue opened by several nodes at once', () => {
  const schemas: string[] = [];
  afterAll(async () => {
    for (const schema of schemas) {
      await dropSchema(url!, schema);
      await dropSchema(url!, `${schema}_pgboss`);
    }
  });

  it('opens on an empty schema from four nodes at once, three times over, and each can queue', async () => {
    for (let round = 0; round < 3; round++) {
      const schema = uniqueSchema();
      schemas.push(schema);
      const opened = await Promise.allSettled(
        Array.from({ length: 4 }, () =>
          createJobQueue(
            { databaseUrl: url!, dataDir: '/nonexistent', databaseSchema: schema },
            { pollMs: 200 },
          ),
        ),
      );
      const queues = opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
      try {
        expect(
          opened
            .filter((o) => o.status === 'rejected')
            .map((o) => String((o as PromiseRejectedResult).reason)),
        ).toEqual([]);
        await Promise.all(
          queues.map((q: JobQueue) =>
            q.createQueue('items', {
              retryLimit: 0,
              retryDelayMs: 100,
              retryBackoff: false,
              expireMs: 10_000,
            }),
          ),
        );
        await Promise.all(queues.map((q, i) => q.add('items', [{ group: `acc_${i}`, data: { i } }])));
      } finally {
        await Promise.all(queues.map((q) => q.close()));
      }
    }
  }, 60_000);

  it('installs pg-boss one node at a time: a node waits while another holds the start lock', async () => {
    const schema = uniqueSchema();
    schemas.push(schema);
    // This test plays the node part-way through its install: it holds the lock the nodes take.
    const holder = new pg.Client({ connectionString: url! });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock(hashtext($1))', [`cardshot-queue-start:${schema}_pgboss`]);
      let done = false;
      const opening = createJobQueue(
        { databaseUrl: url!, dataDir: '/nonexistent', databaseSchema: schema },
        { pollMs: 200 },
      ).finally(() => {
        done = true;
      });
      await new Promise((r) => setTimeout(r, 500));
      expect(done).toBe(false);
      const installed = async () =>
        (await holder.query('SELECT to_regclass($1) AS t', [`${schema}_pgboss.version`])).rows[0].t;
      expect(await installed()).toBeNull();
      await holder.query('SELECT pg_advisory_unlock(hashtext($1))', [
        `cardshot-queue-start:${schema}_pgboss`,
      ]);
      const queue = await opening;
      expect(await installed()).not.toBeNull();
      await queue.close();
    } finally {
      await holder.end();
    }
  }, 60_000);
});
