import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cardshot, CardshotError, type Job } from '../../src/client/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { secondAccount } from '../helpers/webhooks.js';

// `cardshot.jobs.*` against a real server over HTTP (SQLite store and queue, the real takumi
// renderer), with a second, hostile account that must see none of it.

let t: TestApp;
let client: Cardshot;
let hostile: Cardshot;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-jobs-client-'));
  t = await startTestApp({ jobsWorkers: 2 });
  const baseUrl = await t.listen();
  client = new Cardshot({ baseUrl, apiKey: t.key.key });
  hostile = new Cardshot({ baseUrl, apiKey: (await secondAccount(t)).key });
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('cardshot.jobs', () => {
  let job: Job;
  const items = [
    { template: 'blog', title: 'Client one' },
    { template: 'saas', title: 'Client two', format: 'webp' as const },
  ];

  beforeAll(async () => {
    const sub = await client.jobs.submit(
      { items, metadata: { from: 'client' } },
      { idempotencyKey: 'client-1' },
    );
    expect(sub).toMatchObject({ status: 'queued', items: 2, created: true });
    expect(sub.statusUrl).toBe(`${client.baseUrl}/jobs/${sub.id}`);
    const seen: string[] = [];
    job = await client.jobs.wait(sub.id, { intervalMs: 20, onProgress: (j) => seen.push(j.status) });
    expect(seen.at(-1)).toBe('completed');
  }, 30_000);

  it('waits to the end and gives the typed job', () => {
    expect(job).toMatchObject({
      status: 'completed',
      items: 2,
      counts: { queued: 0, running: 0, succeeded: 2, failed: 0, canceled: 0 },
      metadata: { from: 'client' },
      webhook: null,
    });
    expect(job.resultsUrl).toMatch(/\/results\.zip\?expires=\d+&signature=/);
  });

  it('answers the same job for the same Idempotency-Key (created: false)', async () => {
    const again = await client.jobs.submit({ items }, { idempotencyKey: 'client-1' });
    expect(again).toMatchObject({ id: job.id, created: false });
  });

  it('pages items, and allItems walks every page', async () => {
    const first = await client.jobs.items(job.id, { limit: 1 });
    expect(first.items).toEqual([
      {
        index: 0,
        status: 'succeeded',
        kind: 'card',
        result: {
          url: expect.stringMatching(/\/items\/0\?expires=\d+&signature=/),
          contentType: 'image/png',
          bytes: expect.any(Number),
          etag: expect.stringMatching(/^".+"$/),
          width: 1200,
          height: 630,
        },
      },
    ]);
    expect(first.nextCursor).not.toBeNull();
    const all = [];
    for await (const item of client.jobs.allItems(job.id, { limit: 1 })) all.push(item.index);
    expect(all).toEqual([0, 1]);
    expect((await client.jobs.items(job.id, { status: 'failed' })).items).toEqual([]);
  });

  it("downloads one item to a file: the synchronous render's bytes and ETag", async () => {
    const file = path.join(dir, 'one.webp');
    const got = await client.jobs.download(job.id, file, { index: 1 });
    const sync = await client.renderTemplate(items[1]!);
    const bytes = await readFile(file);
    expect(Buffer.compare(bytes, Buffer.from(sync.image!))).toBe(0);
    expect(got).toEqual({ bytes: bytes.length, contentType: 'image/webp', etag: sync.etag });
    expect(existsSync(`${file}.part`)).toBe(false);
  });

  it('streams the zip to a Node writable and to a web WritableStream', async () => {
    const sink = new PassThrough();
    const chunks: Buffer[] = [];
    sink.on('data', (c: Buffer) => chunks.push(c));
    const got = await client.jobs.download(job.id, sink);
    const zip = Buffer.concat(chunks);
    expect(zip.subarray(0, 4).toString('latin1')).toBe('PK\x03\x04');
    expect(got).toMatchObject({ bytes: zip.length, contentType: 'application/zip' });

    let web = 0;
    await client.jobs.download(
      job.id,
      new WritableStream<Uint8Array>({
        write: (c) => {
          web += c.length;
        },
      }),
    );
    expect(web).toBe(zip.length);
  });

  it('lists the job newest first', async () => {
    const page = await client.jobs.list({ limit: 5 });
    expect(page.jobs.map((j) => j.id)).toContain(job.id);
    expect(page.jobs[0]!.createdAt >= page.jobs.at(-1)!.createdAt).toBe(true);
  });

  it('submits CSV rows as items', async () => {
    const sub = await client.jobs.submitCsv('template,title\nblog,From CSV\n');
    const done = await client.jobs.wait(sub.id, { intervalMs: 20 });
    expect(done.counts.succeeded).toBe(1);
  });

  it('cancels: queued items never run', async () => {
    const many = Array.from({ length: 40 }, (_, i) => ({ template: 'blog', title: `c${i}` }));
    const sub = await client.jobs.submit({ items: many });
    const canceled = await client.jobs.cancel(sub.id);
    expect(canceled.status).toBe('canceled');
    const after = await client.jobs.wait(sub.id, { intervalMs: 20 });
    expect(after.counts.canceled).toBeGreaterThan(0);
    // Canceled is final at once; items already running may still finish.
    const { succeeded, failed, canceled: c, running, queued } = after.counts;
    expect({ queued, total: succeeded + failed + c + running }).toEqual({ queued: 0, total: 40 });
  });

  it('wait stops on its signal or time-out with a CardshotError; the job goes on', async () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ template: 'blog', title: `w${i}` }));
    const sub = await client.jobs.submit({ items: many });
    const timedOut = await client.jobs.wait(sub.id, { intervalMs: 5, timeoutMs: 1 }).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(CardshotError);
    expect(timedOut).toMatchObject({ code: 'timeout', status: 0 });
    const controller = new AbortController();
    controller.abort();
    await expect(client.jobs.wait(sub.id, { signal: controller.signal })).rejects.toMatchObject({
      code: 'aborted',
    });
    await client.jobs.cancel(sub.id);
  });

  it('refuses a bad item with the server message as a CardshotError', async () => {
    const err = await client.jobs.submit({ items: [{ template: 'blog' } as never] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CardshotError);
    expect(err).toMatchObject({ status: 400, code: 'bad_request', message: 'item 0: title is required' });
  });

  it("shows another account's job to no one else: 404 on every call", async () => {
    for (const call of [
      () => hostile.jobs.get(job.id),
      () => hostile.jobs.items(job.id),
      () => hostile.jobs.cancel(job.id),
      () => hostile.jobs.download(job.id, path.join(dir, 'stolen.zip')),
      () => hostile.jobs.download(job.id, path.join(dir, 'stolen.png'), { index: 0 }),
    ]) {
      await expect(call()).rejects.toMatchObject({ status: 404, code: 'not_found', message: 'No such job' });
    }
    expect(existsSync(path.join(dir, 'stolen.zip'))).toBe(false);
    expect((await hostile.jobs.list()).jobs).toEqual([]);
  });
});
