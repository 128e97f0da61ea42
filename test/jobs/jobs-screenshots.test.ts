// @module-tag chromium
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type PageServer, startPageServer } from '../helpers/pages.js';
import { pngSize } from '../helpers/png.js';

// Screenshot items: real Chromium, fixture pages on 127.0.0.1. An item's image is what the
// synchronous route answers for the same request (the same cache, the same ETag and bytes).
let t: TestApp;
let pages: PageServer;

beforeAll(async () => {
  pages = await startPageServer();
  t = await startTestApp({ allowPrivateHosts: [pages.hostPort], jobsWorkers: 2 });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await pages?.close();
});

const json = <T = Record<string, unknown>>(res: { body: string }) => JSON.parse(res.body) as T;

describe('screenshot items', () => {
  it('captures pages with their options; the synchronous route then answers the same bytes and ETag', async () => {
    const items = [
      { url: `${pages.url}/wide`, viewport: 'mobile' },
      { url: `${pages.url}/fluid`, viewport: 'og', format: 'jpeg', quality: 70 },
      { url: `${pages.url}/fluid`, selector: '#missing-element', delay: 0 },
    ];
    const res = await t.inject({ method: 'POST', url: '/jobs', payload: { items } });
    expect(res.statusCode).toBe(202);
    const { id } = json<{ id: string }>(res);
    let job: { status: string; counts: Record<string, number> };
    for (const end = Date.now() + 90_000; ; ) {
      job = json(await t.inject({ method: 'GET', url: `/jobs/${id}` }));
      if (job.status !== 'queued' && job.status !== 'running') break;
      if (Date.now() > end) throw new Error(`not done: ${JSON.stringify(job)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(job.counts).toMatchObject({ succeeded: 2, failed: 1 });
    const listed = json<{
      items: Array<{ kind: string; status: string; error?: string; result: { width: number } | null }>;
    }>(await t.inject({ method: 'GET', url: `/jobs/${id}/items` })).items;
    expect(listed.map((i) => [i.kind, i.status])).toEqual([
      ['screenshot', 'succeeded'],
      ['screenshot', 'succeeded'],
      ['screenshot', 'failed'],
    ]);
    // The third fails in the synchronous route's words (a selector that never matches).
    expect(listed[2]!.error).toMatch(/#missing-element/);

    const first = await t.inject({ method: 'GET', url: `/jobs/${id}/items/0` });
    expect(first.headers['content-type']).toBe('image/png');
    expect(pngSize(first.rawPayload).width).toBe(listed[0]!.result!.width);
    const sync = await t.inject({
      method: 'GET',
      url: `/render/url?url=${encodeURIComponent(`${pages.url}/wide`)}&viewport=mobile`,
    });
    expect(sync.headers['x-cache']).toBe('HIT');
    expect(sync.headers.etag).toBe(first.headers.etag);
    expect(sync.rawPayload.equals(first.rawPayload)).toBe(true);
    const jpeg = await t.inject({ method: 'GET', url: `/jobs/${id}/items/1` });
    expect(jpeg.headers['content-type']).toBe('image/jpeg');
  }, 120_000);
});
