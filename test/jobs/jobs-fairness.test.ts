// @module-tag slow
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

// Issue 28 §3, fair: a 5-item job of one account submitted while another (hostile) account has
// 2,000 items queued finishes within 3× its time on the same idle node (TIMING: run alone).
let t: TestApp;
let hostileKey = '';

beforeAll(async () => {
  const plansFile = path.join(os.tmpdir(), `cardshot-jobs-fair-${process.pid}.json`);
  await writeFile(
    plansFile,
    JSON.stringify({
      bulk: {
        templates: '*',
        screenshots: false,
        rateLimit: { requests: 1_000_000, windowSeconds: 60 },
        jobs: { concurrency: 8, maxItems: 10_000, maxWaiting: 100_000 },
      },
    }),
  );
  t = await startTestApp({ plansFile, jobsWorkers: 4 }, { plan: 'bulk' });
  const hostile = await t.modules.accounts.accounts.createAccount({
    name: 'Bulk',
    email: 'bulk-fair@example.com',
    plan: 'bulk',
  });
  hostileKey = (
    await t.modules.accounts.accounts.createKey({ accountId: hostile.id, name: 'k', environment: 'test' })
  ).key;
}, 60_000);
afterAll(async () => {
  await t?.close();
});

let n = 0;
const cards = (count: number, tag: string) =>
  Array.from({ length: count }, () => ({ template: 'blog', title: `${tag} ${++n}` }));
const json = <T = Record<string, unknown>>(res: { body: string }) => JSON.parse(res.body) as T;

async function timeJob(items: unknown[]): Promise<number> {
  const started = performance.now();
  const { id } = json<{ id: string }>(await t.inject({ method: 'POST', url: '/jobs', payload: { items } }));
  for (const end = Date.now() + 60_000; ; ) {
    const job = json<{ status: string }>(await t.inject({ method: 'GET', url: `/jobs/${id}` }));
    if (job.status === 'completed') return performance.now() - started;
    if (Date.now() > end) throw new Error(`job ${id} still ${job.status}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('fair between accounts', () => {
  it("runs a 5-item job behind another account's 2,000 queued items within 3x its time alone", async () => {
    await timeJob(cards(20, 'warm'));
    // Medians of three: a 5-item job takes tens of ms, and one sample beside the CI's other
    // work missed the bound by 2 ms (152 against 150).
    const median3 = async (tag: string) => {
      const times = [];
      for (let i = 0; i < 3; i++) times.push(await timeJob(cards(5, tag)));
      return times.sort((a, b) => a - b)[1]!;
    };
    const alone = await median3('alone');
    const flood = await t.inject({
      method: 'POST',
      url: '/jobs',
      headers: { 'x-api-key': hostileKey },
      payload: { items: cards(2000, 'flood') },
    });
    expect(flood.statusCode).toBe(202);
    const behind = await median3('behind');
    const state = json<{ counts: { queued: number } }>(
      await t.inject({
        method: 'GET',
        url: `/jobs/${json<{ id: string }>(flood).id}`,
        headers: { 'x-api-key': hostileKey },
      }),
    );
    // The flood was still waiting: the small job did not simply run after it.
    expect(state.counts.queued).toBeGreaterThan(1000);
    expect(behind).toBeLessThanOrEqual(3 * Math.max(alone, 50));
    await t.inject({
      method: 'DELETE',
      url: `/jobs/${json<{ id: string }>(flood).id}`,
      headers: { 'x-api-key': hostileKey },
    });
  }, 120_000);
});
