import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type DashClient, signedIn } from '../helpers/dashboard.js';
import { dropSchema, postgresTestUrl, uniqueSchema } from '../helpers/services.js';

// pg-boss's own dashboard (@pg-boss/dashboard) mounted at /dashboard/admin/queue behind our
// sign-in, for the operators' accounts only (CARDSHOT_DASHBOARD_ADMINS), on the real queue in
// PostgreSQL: a job's items waiting in it show there with their real count; a signed-out
// visitor is sent to sign in, any other account gets the dashboard's 404, writes are refused.
const pgUrl = await postgresTestUrl();
const schema = uniqueSchema();
const OPS = 'ops@example.com';
let t: TestApp;
let admin: DashClient;
let customer: DashClient;

beforeAll(async () => {
  if (!pgUrl) return;
  // No workers: the job's items stay waiting in the queue, where the page must count them.
  t = await startTestApp({
    databaseUrl: pgUrl,
    databaseSchema: schema,
    jobsWorkers: 0,
    dashboardAdmins: [OPS],
  });
  await t.modules.accounts.accounts.createAccount({ name: 'Operators', email: OPS, plan: 'pro' });
  admin = await signedIn(t, OPS);
  customer = await signedIn(t);
}, 60_000);
afterAll(async () => {
  await t?.close();
  if (pgUrl) {
    await dropSchema(pgUrl, schema);
    await dropSchema(pgUrl, `${schema}_pgboss`);
  }
});

describe.skipIf(!pgUrl)('the queue dashboard', () => {
  it('shows an operator the real queue: the waiting items of a job', async () => {
    const items = Array.from({ length: 7 }, (_, i) => ({ template: 'blog', title: `Queued ${i}` }));
    const res = await t.inject({ method: 'POST', url: '/jobs', payload: { items } });
    expect(res.statusCode).toBe(202);
    const home = await admin.get('/dashboard/admin/queue');
    expect(home.statusCode, home.body.slice(0, 300)).toBe(200);
    expect(home.headers['content-type']).toMatch(/^text\/html/);
    expect(home.body).toContain('job-items');
    expect(home.headers['x-frame-options']).toBe('DENY');
    expect(home.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(home.headers['set-cookie']).toBeUndefined();
    const queue = await admin.get('/dashboard/admin/queue/queues/job-items');
    expect(queue.statusCode, queue.body.slice(0, 300)).toBe(200);
    // Every task pg-boss holds for the job's items is listed, as waiting ("created").
    const { rows } = await sql<{ id: string; state: string }>`
      SELECT id::text, state FROM ${sql.table(`${schema}_pgboss.job`)} WHERE name = 'job-items'`.execute(
      t.store.db,
    );
    expect(rows).toHaveLength(7);
    for (const row of rows) {
      expect(row.state).toBe('created');
      expect(queue.body).toContain(row.id);
    }
    expect(queue.body.match(/>created</g)).toHaveLength(7);
    // Read-only: the package hides the controls that would change a job.
    expect(queue.body).not.toMatch(/>(Delete|Cancel|Retry now|Resume)</);
  });

  it('sends a signed-out visitor to sign in, and answers any other account 404', async () => {
    const out = await t.app.inject({ method: 'GET', url: '/dashboard/admin/queue/queues/job-items' });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe(
      `/dashboard/sign-in?from=app&next=${encodeURIComponent('/dashboard/admin/queue/queues/job-items')}`,
    );
    for (const url of ['/dashboard/admin/queue', '/dashboard/admin/queue/queues/job-items']) {
      const res = await customer.get(url);
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toContain('job-items');
      expect(res.body).toContain('There is no dashboard page at this address');
    }
  });

  it('refuses writes: only pages are passed on, and the job list shows no action to take', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/dashboard/admin/queue/queues/job-items',
      cookies: admin.cookies,
      payload: 'intent=delete',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    // The dashboard's own form check refuses it before anything could reach the queue.
    expect(res.statusCode).toBe(403);
    const { rows } = await sql<{ n: string }>`
      SELECT count(*)::text AS n FROM ${sql.table(`${schema}_pgboss.job`)} WHERE name = 'job-items'`.execute(
      t.store.db,
    );
    expect(rows[0]!.n).toBe('7');
  });
});

describe('with the embedded SQLite queue', () => {
  it('has no queue dashboard, even for an operator: it is not pg-boss', async () => {
    const lite = await startTestApp({ jobsWorkers: 0, dashboardAdmins: [OPS] });
    try {
      await lite.modules.accounts.accounts.createAccount({ name: 'Operators', email: OPS, plan: 'pro' });
      const ops = await signedIn(lite, OPS);
      const res = await ops.get('/dashboard/admin/queue');
      expect(res.statusCode).toBe(404);
      expect(res.body).toContain('There is no dashboard page at this address');
    } finally {
      await lite.close();
    }
  });
});
