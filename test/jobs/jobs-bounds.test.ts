import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

// Jobs' bounds and endings on a real app whose node runs no items (CARDSHOT_JOBS_WORKERS=0),
// so queued states hold still, and on one that runs them for the zip.
let idle: TestApp;
let busy: TestApp;
let dir = '';
let hostileKey = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-jobs-bounds-'));
  const plansFile = path.join(dir, 'plans.json');
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
  [idle, busy] = await Promise.all([
    startTestApp({ plansFile, jobsWorkers: 0 }),
    startTestApp({ plansFile, jobsWorkers: 2 }),
  ]);
  const hostile = await idle.modules.accounts.accounts.createAccount({
    name: 'Hostile',
    email: 'hostile-jobs@example.com',
    plan: 'tiny',
  });
  hostileKey = (
    await idle.modules.accounts.accounts.createKey({ accountId: hostile.id, name: 'k', environment: 'test' })
  ).key;
});
afterAll(async () => {
  await Promise.all([idle?.close(), busy?.close()]);
  await rm(dir, { recursive: true, force: true });
});

const cards = (n: number, prefix = 'card') =>
  Array.from({ length: n }, (_, i) => ({ template: 'blog', title: `${prefix} ${i}` }));
const json = <T = Record<string, unknown>>(res: { body: string }) => JSON.parse(res.body) as T;

describe('job bounds', () => {
  it("caps an account's waiting items with 429 and Retry-After; the flood never touches another account", async () => {
    const as = { 'x-api-key': hostileKey };
    const first = await idle.inject({
      method: 'POST',
      url: '/jobs',
      headers: as,
      payload: { items: cards(3) },
    });
    expect(first.statusCode).toBe(202);
    const second = await idle.inject({
      method: 'POST',
      url: '/jobs',
      headers: as,
      payload: { items: cards(2) },
    });
    expect(second.statusCode).toBe(429);
    expect(second.headers['retry-after']).toBe('60');
    expect(json(second)).toEqual({
      error:
        "Your account has 3 job items waiting; your plan allows 4, so this job's 2 must wait until some have run",
    });
    // The first account (pro) submits as if nothing happened.
    const mine = await idle.inject({ method: 'POST', url: '/jobs', payload: { items: cards(50) } });
    expect(mine.statusCode).toBe(202);
    // Canceling frees the hostile account's places.
    const id = json<{ id: string }>(first).id;
    expect((await idle.inject({ method: 'DELETE', url: `/jobs/${id}`, headers: as })).statusCode).toBe(200);
    const third = await idle.inject({
      method: 'POST',
      url: '/jobs',
      headers: as,
      payload: { items: cards(2) },
    });
    expect(third.statusCode).toBe(202);
  });

  it('cancels: queued items never run, the job says canceled, and DELETE again answers the same', async () => {
    const id = json<{ id: string }>(
      await idle.inject({ method: 'POST', url: '/jobs', payload: { items: cards(5) } }),
    ).id;
    const res = await idle.inject({ method: 'DELETE', url: `/jobs/${id}` });
    expect(res.statusCode).toBe(200);
    const job = json(res);
    expect(job).toMatchObject({
      id,
      status: 'canceled',
      counts: { queued: 0, running: 0, succeeded: 0, failed: 0, canceled: 5 },
    });
    expect(job.completedAt).toEqual(expect.any(String));
    const again = await idle.inject({ method: 'DELETE', url: `/jobs/${id}` });
    expect(json(again)).toEqual(job);
    const item = await idle.inject({ method: 'GET', url: `/jobs/${id}/items/4` });
    expect(item.statusCode).toBe(404);
    expect(json(item)).toEqual({ error: 'Item 4 has no image: it is canceled' });
    const outside = await idle.inject({ method: 'GET', url: `/jobs/${id}/items/5` });
    expect(json(outside)).toEqual({ error: `Job ${id} has no item 5 (its items are 0…4)` });
    const canceled = json<{ items: unknown[] }>(
      await idle.inject({ method: 'GET', url: `/jobs/${id}/items?status=canceled&limit=100` }),
    );
    expect(canceled.items).toHaveLength(5);
  });

  it('deletes a job and its files once its retention has passed', async () => {
    const id = json<{ id: string }>(
      await busy.inject({ method: 'POST', url: '/jobs', payload: { items: cards(2, 'kept') } }),
    ).id;
    const end = Date.now() + 20_000;
    while (
      json<{ status: string }>(await busy.inject({ method: 'GET', url: `/jobs/${id}` })).status !==
      'completed'
    ) {
      if (Date.now() > end) throw new Error('job did not complete');
      await new Promise((r) => setTimeout(r, 25));
    }
    const account = busy.account.id;
    const jobDir = path.join(busy.config.dataDir, 'jobs', account, id);
    expect(existsSync(jobDir)).toBe(true);
    // Its retention ends now (as if the plan's days had passed).
    await sql`update jobs set expires_at = 1 where id = ${id}`.execute(busy.store.db);
    await busy.modules.jobs.service.sweep();
    expect(existsSync(jobDir)).toBe(false);
    expect((await busy.inject({ method: 'GET', url: `/jobs/${id}` })).statusCode).toBe(404);
  });

  it("streams a zip of the finished items, named by index, with the items' bytes", async () => {
    const id = json<{ id: string }>(
      await busy.inject({ method: 'POST', url: '/jobs', payload: { items: cards(3, 'zip') } }),
    ).id;
    const end = Date.now() + 20_000;
    while (
      json<{ status: string }>(await busy.inject({ method: 'GET', url: `/jobs/${id}` })).status !==
      'completed'
    ) {
      if (Date.now() > end) throw new Error('job did not complete');
      await new Promise((r) => setTimeout(r, 25));
    }
    const res = await busy.inject({ method: 'GET', url: `/jobs/${id}/results.zip` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${id}.zip"`);
    const file = path.join(dir, `${id}.zip`);
    await writeFile(file, res.rawPayload);
    expect(execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).trim().split('\n')).toEqual([
      '0.png',
      '1.png',
      '2.png',
    ]);
    for (let i = 0; i < 3; i++) {
      const inZip = execFileSync('unzip', ['-p', file, `${i}.png`]);
      const served = await busy.inject({ method: 'GET', url: `/jobs/${id}/items/${i}` });
      expect(inZip.equals(served.rawPayload)).toBe(true);
    }
  });
});

describe("an account's result bytes", () => {
  it('fail the items past CARDSHOT_JOBS_MAX_BYTES_PER_ACCOUNT, saying so, and stay within it', async () => {
    const small = await startTestApp({ jobsWorkers: 2, jobsMaxBytesPerAccount: 1024 * 1024 });
    try {
      const items = Array.from({ length: 80 }, (_, i) => ({
        template: 'blog',
        title: `A title long enough to draw many glyphs ${i}`,
        subtitle: `Subtitle ${i} with more text to make the image larger`,
      }));
      const { id } = json<{ id: string }>(
        await small.inject({ method: 'POST', url: '/jobs', payload: { items } }),
      );
      let job: { status: string; counts: Record<string, number> };
      for (const end = Date.now() + 60_000; ; ) {
        job = json(await small.inject({ method: 'GET', url: `/jobs/${id}` }));
        if (!['queued', 'running'].includes(job.status)) break;
        if (Date.now() > end) throw new Error('job did not end');
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(job.counts.failed).toBeGreaterThan(0);
      expect(job.counts.succeeded).toBeGreaterThan(0);
      const failed = json<{ items: Array<{ error: string }> }>(
        await small.inject({ method: 'GET', url: `/jobs/${id}/items?status=failed&limit=1` }),
      ).items;
      expect(failed[0]!.error).toBe(
        "could not store the result: your account's job results are at their limit (1 MiB) until older jobs reach the end of their retention",
      );
      let stored = 0;
      for (let cursor: string | null = ''; cursor !== null; ) {
        const page: { items: Array<{ result: { bytes: number } }>; nextCursor: string | null } = json<{
          items: Array<{ result: { bytes: number } }>;
          nextCursor: string | null;
        }>(
          await small.inject({
            method: 'GET',
            url: `/jobs/${id}/items?status=succeeded&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
          }),
        );
        for (const i of page.items) stored += i.result.bytes;
        cursor = page.nextCursor;
      }
      expect(stored).toBeLessThanOrEqual(1024 * 1024);
    } finally {
      await small.close();
    }
  }, 90_000);
});
