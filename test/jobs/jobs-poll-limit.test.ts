import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cardshot } from '../../src/client/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { secondAccount } from '../helpers/webhooks.js';

// Reading jobs (GET /jobs, /jobs/:id, /jobs/:id/items) spends a per-account budget of its own:
// a hostile account polling in a tight loop gets 429 with Retry-After, while another account's
// polls and renders, and the hostile account's own renders, go on untouched. Real app, real
// SQLite store and queue, the memory limiter; the budget made small (10 per 10 s) to reach it.
const LIMIT = 10;
let t: TestApp;
let other: { accountId: string; key: string };

beforeAll(async () => {
  t = await startTestApp({ jobsWorkers: 1, jobsPollLimit: LIMIT });
  other = await secondAccount(t, 'Polite');
});
afterAll(async () => {
  await t?.close();
});

const json = <T = Record<string, unknown>>(res: { body: string }) => JSON.parse(res.body) as T;
const as = (key: string | undefined) => (key ? { headers: { 'x-api-key': key } } : {});
const submit = async (key?: string) =>
  json<{ id: string }>(
    await t.inject({
      method: 'POST',
      url: '/jobs',
      payload: { items: [{ template: 'blog', title: `Poll ${Math.random()}` }] },
      ...as(key),
    }),
  ).id;
const MESSAGE = `Rate limit exceeded: at most ${LIMIT} reads of your jobs every 10 s; poll a job every few seconds (honouring Retry-After), or let a webhook tell you when it ends`;

describe('polling the jobs API', () => {
  it("a flood gets 429 with Retry-After; the other account's polls and renders, and the flooder's renders, are unaffected", async () => {
    const mine = await submit();
    const theirs = await submit(other.key);
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<TestApp['inject']>> | undefined;
    for (let i = 0; i < 50; i++) {
      const res = await t.inject({ method: 'GET', url: `/jobs/${mine}` });
      statuses.push(res.statusCode);
      if (res.statusCode === 429) refused ??= res;
    }
    expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(200));
    expect(statuses.slice(LIMIT)).toEqual(Array(50 - LIMIT).fill(429));
    expect(json(refused!)).toEqual({ error: MESSAGE });
    const retryAfter = Number(refused!.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);
    expect(refused!.headers.ratelimit).toBeUndefined();
    // One budget for every read of the account's jobs.
    expect((await t.inject({ method: 'GET', url: '/jobs' })).statusCode).toBe(429);
    expect((await t.inject({ method: 'GET', url: `/jobs/${mine}/items` })).statusCode).toBe(429);

    // The other account polls as usual, with its own budget in the headers.
    const polite = await t.inject({ method: 'GET', url: `/jobs/${theirs}`, ...as(other.key) });
    expect(polite.statusCode).toBe(200);
    expect(polite.headers['ratelimit-policy']).toBe(`"jobs-poll";q=${LIMIT};w=10`);
    expect(polite.headers.ratelimit).toMatch(new RegExp(`^"jobs-poll";r=${LIMIT - 1};t=\\d+$`));
    expect((await t.inject({ method: 'GET', url: '/jobs', ...as(other.key) })).statusCode).toBe(200);
    // Renders spend the render budget, which the flood did not touch: the flooder's included.
    for (const key of [undefined, other.key]) {
      const card = await t.inject({
        method: 'POST',
        url: '/render/template',
        payload: { template: 'blog', title: 'Still rendering' },
        ...as(key),
      });
      expect(card.statusCode).toBe(200);
      const limit = Number(card.headers['x-ratelimit-limit']);
      // This render, and at most the one job item of the account: none of the 50 polls.
      expect(Number(card.headers['x-ratelimit-remaining'])).toBeGreaterThanOrEqual(limit - 2);
    }
    // Submitting and cancelling are not reads: the flooder may still cancel its job.
    expect((await t.inject({ method: 'DELETE', url: `/jobs/${mine}` })).statusCode).toBe(200);
  });

  it('the client waits out Retry-After instead of failing', { tags: ['slow'], timeout: 40_000 }, async () => {
    const baseUrl = await t.listen();
    const fresh = await secondAccount(t, 'Waiter');
    const client = new Cardshot({ baseUrl, apiKey: fresh.key });
    const id = await submit(fresh.key);
    // Something else of the account's spends its budget first.
    for (let i = 0; i < LIMIT; i++) await t.inject({ method: 'GET', url: '/jobs', ...as(fresh.key) });
    expect((await t.inject({ method: 'GET', url: `/jobs/${id}`, ...as(fresh.key) })).statusCode).toBe(429);
    const started = Date.now();
    const job = await client.jobs.wait(id, { intervalMs: 10, timeoutMs: 30_000 });
    expect(job.status).toBe('completed');
    // It slept through the window rather than hammering it: the budget is spent no further.
    expect(Date.now() - started).toBeGreaterThan(1000);
    const after = await t.inject({ method: 'GET', url: `/jobs/${id}`, ...as(fresh.key) });
    expect(after.statusCode).toBe(200);
    expect(Number(/r=(\d+)/.exec(String(after.headers.ratelimit))?.[1])).toBeGreaterThanOrEqual(LIMIT - 3);
  });
});
