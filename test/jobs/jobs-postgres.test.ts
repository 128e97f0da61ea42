import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { dropSchema, postgresTestUrl, uniqueSchema } from '../helpers/services.js';

// The jobs API with DATABASE_URL: the job store in PostgreSQL and the queue on pg-boss in the
// same database (the scale-out setup), end to end over HTTP.
const pgUrl = await postgresTestUrl();
const schema = uniqueSchema();
let t: TestApp;

beforeAll(async () => {
  if (!pgUrl) return;
  t = await startTestApp({ databaseUrl: pgUrl, databaseSchema: schema, jobsWorkers: 2 });
}, 60_000);
afterAll(async () => {
  await t?.close();
  if (pgUrl) {
    await dropSchema(pgUrl, schema);
    await dropSchema(pgUrl, `${schema}_pgboss`);
  }
});

const json = <T = Record<string, unknown>>(res: { body: string }) => JSON.parse(res.body) as T;

describe.skipIf(!pgUrl)('jobs on PostgreSQL and pg-boss', () => {
  it('runs a job to completion with every item once, and cancels another', async () => {
    const items = Array.from({ length: 20 }, (_, i) => ({ template: 'blog', title: `PG ${i}` }));
    const res = await t.inject({ method: 'POST', url: '/jobs', payload: { items } });
    expect(res.statusCode).toBe(202);
    const { id } = json<{ id: string }>(res);
    let job: { status: string; counts: Record<string, number> };
    for (const end = Date.now() + 30_000; ; ) {
      job = json(await t.inject({ method: 'GET', url: `/jobs/${id}` }));
      if (job.status === 'completed') break;
      if (Date.now() > end) throw new Error(`not completed: ${JSON.stringify(job)}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(job.counts).toEqual({ queued: 0, running: 0, succeeded: 20, failed: 0, canceled: 0 });
    const sync = await t.inject({ method: 'POST', url: '/render/template', payload: items[7] });
    const got = await t.inject({ method: 'GET', url: `/jobs/${id}/items/7` });
    expect(got.headers.etag).toBe(sync.headers.etag);
    expect(got.rawPayload.equals(sync.rawPayload)).toBe(true);

    const other = json<{ id: string }>(
      await t.inject({ method: 'POST', url: '/jobs', payload: { items: [...items, ...items, ...items] } }),
    ).id;
    const canceled = json<{ status: string; counts: Record<string, number> }>(
      await t.inject({ method: 'DELETE', url: `/jobs/${other}` }),
    );
    expect(canceled.status).toBe('canceled');
    const c = canceled.counts;
    expect(c.queued! + c.running!).toBeLessThanOrEqual(2);
    expect(c.succeeded! + c.failed! + c.canceled! + c.running! + c.queued!).toBe(60);
  }, 60_000);
});
