// @module-tag process
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISK_FULL } from '../../src/jobs/results.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { mountSmallDisk, type SmallDisk, smallDiskAvailable } from '../helpers/small-disk.js';

// Issue 28 §3: a full disk while writing results. A real 4 MiB tmpfs holds the results; it is
// filled mid-way: the items written after fail with a clear reason, the ones before stay whole.
let disk: SmallDisk;
let t: TestApp;

beforeAll(async () => {
  if (!smallDiskAvailable) return;
  disk = await mountSmallDisk(4 * 1024 * 1024);
  t = await startTestApp({ jobsWorkers: 2, jobsResultsDir: disk.dir });
});
afterAll(async () => {
  await t?.close();
  await disk?.close();
});

const json = <T = Record<string, unknown>>(res: { body: string }) => JSON.parse(res.body) as T;
const cards = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({ template: 'blog', title: `${prefix} ${i}` }));

async function ended(id: string) {
  for (const end = Date.now() + 30_000; ; ) {
    const job = json<{ status: string; counts: Record<string, number> }>(
      await t.inject({ method: 'GET', url: `/jobs/${id}` }),
    );
    if (!['queued', 'running'].includes(job.status)) return job;
    if (Date.now() > end) throw new Error(`job ${id} did not end`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.skipIf(!smallDiskAvailable)('a full disk while writing job results', () => {
  it('fails the items it cannot store with a clear reason and loses nothing stored before', async () => {
    const before = json<{ id: string }>(
      await t.inject({ method: 'POST', url: '/jobs', payload: { items: cards(3, 'Before') } }),
    ).id;
    expect((await ended(before)).status).toBe('completed');
    const kept = await Promise.all(
      [0, 1, 2].map(
        async (i) => (await t.inject({ method: 'GET', url: `/jobs/${before}/items/${i}` })).rawPayload,
      ),
    );

    const free = await disk.fill();
    const during = json<{ id: string }>(
      await t.inject({ method: 'POST', url: '/jobs', payload: { items: cards(3, 'During') } }),
    ).id;
    const job = await ended(during);
    expect(job.status).toBe('failed');
    expect(job.counts).toMatchObject({ succeeded: 0, failed: 3 });
    const items = json<{ items: Array<{ error: string }> }>(
      await t.inject({ method: 'GET', url: `/jobs/${during}/items` }),
    );
    expect(items.items.map((i) => i.error)).toEqual([DISK_FULL, DISK_FULL, DISK_FULL]);
    // No half-written or temporary file was left behind.
    const account = (await readdir(disk.dir)).find((d) => !d.startsWith('filler'))!;
    expect(await readdir(path.join(disk.dir, account, during)).catch(() => [])).toEqual([]);

    // The earlier results are intact, byte for byte.
    for (const [i, body] of kept.entries()) {
      const again = await t.inject({ method: 'GET', url: `/jobs/${before}/items/${i}` });
      expect(again.statusCode).toBe(200);
      expect(again.rawPayload.equals(body)).toBe(true);
    }
    // Room again: the next job succeeds.
    await free();
    const after = json<{ id: string }>(
      await t.inject({ method: 'POST', url: '/jobs', payload: { items: cards(2, 'After') } }),
    ).id;
    expect((await ended(after)).status).toBe('completed');
  });
});
