import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

// Issue 28 §1: each item counts against the account's rate limit as it runs, not at
// submission, and in usage as the render it is. A plan of 3 requests per 2 s runs a 7-item job
// to completion, slowed to its budget, never failing an item for it.
let t: TestApp;

beforeAll(async () => {
  const plansFile = path.join(os.tmpdir(), `cardshot-jobs-rl-${process.pid}.json`);
  await writeFile(
    plansFile,
    JSON.stringify({
      slow: { templates: '*', screenshots: false, rateLimit: { requests: 3, windowSeconds: 2 } },
    }),
  );
  t = await startTestApp({ plansFile, jobsWorkers: 2 }, { plan: 'slow' });
});
afterAll(async () => {
  await t?.close();
});

const json = <T = Record<string, unknown>>(res: { body: string }) => JSON.parse(res.body) as T;

describe('jobs and the rate limit', () => {
  it('spends the budget as items run: the job slows to it and completes; usage counts each card, no 429', async () => {
    const items = Array.from({ length: 7 }, (_, i) => ({ template: 'blog', title: `Budget ${i}` }));
    const started = Date.now();
    const res = await t.inject({ method: 'POST', url: '/jobs', payload: { items } });
    expect(res.statusCode).toBe(202);
    const { id } = json<{ id: string }>(res);
    let job: { status: string; counts: Record<string, number> };
    for (const end = Date.now() + 30_000; ; ) {
      job = json(await t.inject({ method: 'GET', url: `/jobs/${id}` }));
      if (job.status !== 'queued' && job.status !== 'running') break;
      if (Date.now() > end) throw new Error(`not done: ${JSON.stringify(job)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(job.status).toBe('completed');
    expect(job.counts).toMatchObject({ succeeded: 7, failed: 0 });
    // 7 renders at 3 per 2 s: at least two more windows after the first.
    expect(Date.now() - started).toBeGreaterThanOrEqual(3500);
    await t.modules.usage.flush();
    const today = new Date().toISOString().slice(0, 10);
    const rows = await t.store.usage(t.account.id, today, today);
    expect(rows.find((r) => r.kind === 'template')?.count).toBe(7);
    // Put off, never refused: no 429 was answered, so none is counted (however often an item waited).
    expect(rows.find((r) => r.kind === 'rate_limited')).toBeUndefined();
  }, 60_000);
});
