import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_NAMED_ERRORS } from '../../src/jobs/items.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

// The jobs API over a real app: real SQLite store and queue in a temporary data dir, the real
// takumi renderer, two accounts (the second one hostile).
let t: TestApp;
let otherKey = '';
let plansFile = '';

beforeAll(async () => {
  const dir = path.join((await import('node:os')).tmpdir(), `cardshot-jobs-plans-${process.pid}.json`);
  plansFile = dir;
  // "tiny": 3 items a job, 4 waiting at most, one item at a time: small enough to hit each bound.
  await writeFile(
    plansFile,
    JSON.stringify({
      tiny: {
        templates: ['blog'],
        screenshots: false,
        rateLimit: { requests: 1000, windowSeconds: 60 },
        jobs: { maxItems: 3, maxWaiting: 4, concurrency: 1, retentionDays: 1 },
      },
    }),
  );
  t = await startTestApp({ plansFile, jobsWorkers: 2 });
  const other = await t.modules.accounts.accounts.createAccount({
    name: 'Other',
    email: 'other-jobs@example.com',
    plan: 'tiny',
  });
  otherKey = (
    await t.modules.accounts.accounts.createKey({ accountId: other.id, name: 'k', environment: 'test' })
  ).key;
});
afterAll(async () => {
  await t?.close();
});

interface ItemJson {
  index: number;
  status: string;
  kind: string;
  result: { url: string; etag: string; contentType: string; width: number; height: number };
}
const card = (title: string) => ({ template: 'blog', title });
const submit = (payload: unknown, headers: Record<string, string> = {}) =>
  t.inject({ method: 'POST', url: '/jobs', payload: payload as object, headers });
const json = <T = Record<string, unknown>>(res: { body: string }) => JSON.parse(res.body) as T;

/** The job once it has ended (polled as a client would). */
async function finished(id: string, key?: string): Promise<Record<string, unknown>> {
  const end = Date.now() + 30_000;
  for (;;) {
    const res = await t.inject({
      method: 'GET',
      url: `/jobs/${id}`,
      ...(key ? { headers: { 'x-api-key': key } } : {}),
    });
    const job = json(res);
    if (['completed', 'failed', 'canceled'].includes(job.status as string)) return job;
    if (Date.now() > end) throw new Error(`job ${id} still ${String(job.status)}: ${res.body}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('jobs API', () => {
  it("takes a job of cards, runs it, and serves each item with the synchronous render's bytes and ETag", async () => {
    const res = await submit({
      items: [card('One'), card('Two'), { ...card('Three'), format: 'webp' }],
      metadata: { batch: 7 },
    });
    expect(res.statusCode).toBe(202);
    const body = json<{ id: string; status: string; items: number; statusUrl: string }>(res);
    expect(body).toEqual({
      id: expect.stringMatching(/^job_[A-Za-z0-9_-]{16}$/),
      status: 'queued',
      items: 3,
      statusUrl: expect.stringMatching(new RegExp(`/jobs/${body.id}$`)),
    });
    expect(res.headers.location).toBe(body.statusUrl);

    const job = await finished(body.id);
    expect(job).toMatchObject({
      id: body.id,
      status: 'completed',
      items: 3,
      counts: { queued: 0, running: 0, succeeded: 3, failed: 0, canceled: 0 },
      metadata: { batch: 7 },
    });
    expect(Date.parse(job.completedAt as string)).toBeGreaterThanOrEqual(Date.parse(job.startedAt as string));

    const items = json<{ items: ItemJson[]; nextCursor: string | null }>(
      await t.inject({ method: 'GET', url: `/jobs/${body.id}/items` }),
    );
    expect(items.items.map((i) => [i.index, i.status, i.kind])).toEqual([
      [0, 'succeeded', 'card'],
      [1, 'succeeded', 'card'],
      [2, 'succeeded', 'card'],
    ]);
    expect(items.items[2]!.result).toMatchObject({ contentType: 'image/webp', width: 1200, height: 630 });

    for (const [i, item] of [card('One'), card('Two'), { ...card('Three'), format: 'webp' }].entries()) {
      const sync = await t.inject({ method: 'POST', url: '/render/template', payload: item });
      const got = await t.inject({ method: 'GET', url: `/jobs/${body.id}/items/${i}` });
      expect(got.statusCode).toBe(200);
      expect(got.headers.etag).toBe(sync.headers.etag);
      expect(got.headers['content-type']).toBe(sync.headers['content-type']);
      expect(got.rawPayload.equals(sync.rawPayload)).toBe(true);
      expect(items.items[i]!.result.etag).toBe(sync.headers.etag);
      const again = await t.inject({
        method: 'GET',
        url: `/jobs/${body.id}/items/${i}`,
        headers: { 'if-none-match': String(sync.headers.etag) },
      });
      expect(again.statusCode).toBe(304);
      // The signed link works without a key.
      const link = new URL(items.items[i]!.result.url);
      const signed = await t.inject({ method: 'GET', url: `${link.pathname}${link.search}`, auth: false });
      expect(signed.statusCode).toBe(200);
      expect(signed.rawPayload.equals(sync.rawPayload)).toBe(true);
      const forged = await t.inject({
        method: 'GET',
        url: `${link.pathname}?expires=${link.searchParams.get('expires')}&signature=${'A'.repeat(43)}`,
        auth: false,
      });
      expect(forged.statusCode).toBe(401);
      expect(json(forged)).toEqual({
        error: 'This result link is not valid or has expired; ask GET /jobs/:id for a fresh one',
      });
    }
  });

  it("refuses a job with bad items, naming each by index in the synchronous route's words", async () => {
    const res = await submit({
      items: [card('ok'), { template: 'blog' }, card('ok'), { url: 'ftp://x' }, 'nope'],
    });
    expect(res.statusCode).toBe(400);
    expect(json(res)).toEqual({
      error:
        'item 1: title is required; item 3: url must be an absolute http or https URL (for example https://example.com/); item 4: must be a JSON object: a card ({"template", …}) or a screenshot ({"url", …})',
    });
    const many = await submit({ items: Array.from({ length: 25 }, () => ({ template: 'blog' })) });
    expect(many.statusCode).toBe(400);
    const message = json<{ error: string }>(many).error;
    expect(message.split('; item ').length).toBe(MAX_NAMED_ERRORS);
    expect(message.endsWith('; and 5 more items with errors')).toBe(true);
    expect((await t.inject({ method: 'GET', url: '/jobs' })).statusCode).toBe(200);
  });

  it('takes CSV with a header row, and answers the same job for the same Idempotency-Key', async () => {
    const csv = 'template,title,subtitle\nblog,From CSV,\nblog,"Second, quoted",sub\n';
    const first = await t.inject({
      method: 'POST',
      url: '/jobs',
      payload: csv,
      headers: { 'content-type': 'text/csv', 'idempotency-key': 'csv-1' },
    });
    expect(first.statusCode).toBe(202);
    const again = await t.inject({
      method: 'POST',
      url: '/jobs',
      payload: csv,
      headers: { 'content-type': 'text/csv', 'idempotency-key': 'csv-1' },
    });
    expect(again.statusCode).toBe(200);
    // The same job, as it is now.
    expect(json(again)).toEqual({
      ...json(first),
      status: expect.stringMatching(/^(queued|running|completed)$/),
    });
    const job = await finished(json<{ id: string }>(first).id);
    expect(job.counts).toMatchObject({ succeeded: 2 });
    const bad = await t.inject({
      method: 'POST',
      url: '/jobs',
      payload: 'template,title\nblog\n',
      headers: { 'content-type': 'text/csv' },
    });
    expect(bad.statusCode).toBe(400);
    expect(json<{ error: string }>(bad).error).toMatch(/^The CSV body cannot be read: /);
  });

  it('refuses a body over 10 MiB with 413', async () => {
    const big = JSON.stringify({ items: [card('x'.repeat(10 * 1024 * 1024))] });
    const res = await t.inject({
      method: 'POST',
      url: '/jobs',
      payload: big,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(413);
    expect(json(res)).toEqual({ error: 'Request body must be at most 10 MiB' });
  });

  it('shows a job to its account only; the other account gets 404 everywhere and its own plan limits', async () => {
    const mine = json<{ id: string }>(await submit({ items: [card('mine')] })).id;
    await finished(mine);
    const as = { 'x-api-key': otherKey };
    for (const url of [
      `/jobs/${mine}`,
      `/jobs/${mine}/items`,
      `/jobs/${mine}/items/0`,
      `/jobs/${mine}/results.zip`,
    ]) {
      const res = await t.inject({ method: 'GET', url, headers: as });
      expect(res.statusCode, url).toBe(404);
      expect(json(res), url).toEqual({ error: 'No such job' });
    }
    const del = await t.inject({ method: 'DELETE', url: `/jobs/${mine}`, headers: as });
    expect(del.statusCode).toBe(404);
    const list = json<{ jobs: Array<{ id: string }> }>(
      await t.inject({ method: 'GET', url: '/jobs', headers: as }),
    );
    expect(list.jobs.map((j) => j.id)).not.toContain(mine);

    // Its plan: 3 items a job, blog only.
    const tooMany = await t.inject({
      method: 'POST',
      url: '/jobs',
      headers: as,
      payload: { items: [card('a'), card('b'), card('c'), card('d')] },
    });
    expect(tooMany.statusCode).toBe(403);
    expect(json(tooMany)).toEqual({ error: 'A job on your plan holds at most 3 items (got 4)' });
    const forbidden = await t.inject({
      method: 'POST',
      url: '/jobs',
      headers: as,
      payload: { items: [{ template: 'saas', title: 'x' }] },
    });
    expect(forbidden.statusCode).toBe(403);
    expect(json(forbidden)).toEqual({ error: 'item 0: Template not available on your plan' });
  });

  it('lists newest first with a cursor', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(json<{ id: string }>(await submit({ items: [card(`list ${i}`)] })).id);
    const first = json<{ jobs: Array<{ id: string }>; nextCursor: string }>(
      await t.inject({ method: 'GET', url: '/jobs?limit=2' }),
    );
    expect(first.jobs.map((j) => j.id)).toEqual([ids[2], ids[1]]);
    const next = json<{ jobs: Array<{ id: string }> }>(
      await t.inject({ method: 'GET', url: `/jobs?limit=2&cursor=${first.nextCursor}` }),
    );
    expect(next.jobs[0]!.id).toBe(ids[0]);
    const bad = await t.inject({ method: 'GET', url: '/jobs?cursor=!!' });
    expect(bad.statusCode).toBe(400);
    for (const id of ids) await finished(id);
  });
});
