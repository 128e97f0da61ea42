// @module-tag chromium
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUrlGuard, type LookupFn } from '../../src/net/url-guard.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  AGENT,
  BASIC,
  type CredentialSite,
  SESSION,
  startCredentialSite,
  TOKEN,
} from '../helpers/credential-site.js';
import { pixelAt } from '../helpers/png.js';
import { startWebhookReceiver, status, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { addEndpoint, secondAccount } from '../helpers/webhooks.js';

// A job whose screenshot items carry credentials (issue 29 §2), on real Chromium: the fixture
// site behind a cookie session, a header token and Basic auth is captured signed in, as the
// synchronous POST /render/url captures it; the other origin receives none of them; the items
// API, the webhook bodies, the logs and the SQLite file hold none in clear; a second account's
// identical job without credentials gets its own (signed-out) capture, even with a shared cache.
let t: TestApp;
let site: CredentialSite;
let receiver: WebhookReceiver;
const lookup: LookupFn = async () => [{ address: '93.184.215.14', family: 4 }];

const GREEN = [0, 255, 0, 255];
const RED = [255, 0, 0, 255];
const ALL = {
  headers: { 'X-Token': TOKEN },
  cookies: [{ name: 'session', value: SESSION, httpOnly: true }],
  basicAuth: BASIC,
};
const SECRETS = [
  SESSION,
  TOKEN,
  BASIC.password,
  Buffer.from(`${BASIC.username}:${BASIC.password}`).toString('base64'),
];
const json = <T = Record<string, unknown>>(res: { body: string }) => JSON.parse(res.body) as T;

beforeAll(async () => {
  site = await startCredentialSite();
  receiver = await startWebhookReceiver(status(200));
  t = await startTestApp(
    {
      allowPrivateHosts: [site.hostPort, site.other.hostPort],
      screenshotCacheShared: true,
      jobsWorkers: 2,
    },
    { webhookGuard: createUrlGuard({ allowPrivateHosts: [receiver.hostPort], lookup }) },
  );
}, 60_000);
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  await site?.close();
});

async function finished(id: string, key?: string) {
  for (const end = Date.now() + 90_000; ; ) {
    const job = json<{ status: string; counts: Record<string, number> }>(
      await t.inject({
        method: 'GET',
        url: `/jobs/${id}`,
        ...(key ? { headers: { 'x-api-key': key } } : {}),
      }),
    );
    if (job.status !== 'queued' && job.status !== 'running') return job;
    if (Date.now() > end) throw new Error(`not done: ${JSON.stringify(job)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const image = async (id: string, index: number, key?: string) => {
  const res = await t.inject({
    method: 'GET',
    url: `/jobs/${id}/items/${index}`,
    ...(key ? { headers: { 'x-api-key': key } } : {}),
  });
  expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
  return pixelAt(res.rawPayload, 10, 10);
};

describe('a job signed in', () => {
  it('captures signed in, sends nothing to the other origin, and shows no credential anywhere', async () => {
    const hook = await addEndpoint(t, {
      url: `${receiver.url}/hooks`,
      events: ['job.completed', 'render.succeeded', 'render.failed'],
    });
    const url = `${site.url}/account?job`;
    const before = site.other.seen.length;
    const res = await t.inject({
      method: 'POST',
      url: '/jobs',
      payload: {
        items: [
          { url, ...ALL },
          { url: `${site.url}/account?need=agent`, userAgent: AGENT },
          { url: `${site.url}/account?plain` },
        ],
        webhook: (hook.json as { id: string }).id,
      },
    });
    expect(res.statusCode, res.body).toBe(202);
    const { id } = json<{ id: string }>(res);
    expect((await finished(id)).counts).toMatchObject({ succeeded: 3, failed: 0 });
    expect(await image(id, 0)).toEqual(GREEN);
    expect(await image(id, 1)).toEqual(GREEN);
    expect(await image(id, 2)).toEqual(RED);
    // The page's own fetch() to its origin carried them; the other origin got none.
    expect(site.seen.get('/api/me')?.some((h) => h['x-token'] === TOKEN)).toBe(true);
    const seen = site.other.seen.slice(before);
    expect(seen.length).toBeGreaterThan(0);
    for (const secret of SECRETS) expect(JSON.stringify(seen)).not.toContain(secret);
    for (const h of seen)
      expect([h['x-token'], h.authorization, h.cookie]).toEqual([undefined, undefined, undefined]);

    const hooks = await receiver.waitFor(4, 20_000);
    const shown = [
      (await t.inject({ method: 'GET', url: `/jobs/${id}/items` })).body,
      (await t.inject({ method: 'GET', url: `/jobs/${id}` })).body,
      ...hooks.map((h) => `${JSON.stringify(h.headers)}${h.body}`),
      JSON.stringify(t.logs),
    ].join('\n');
    expect(hooks.map((h) => (JSON.parse(h.body) as { type: string }).type).sort()).toEqual([
      'job.completed',
      'render.succeeded',
      'render.succeeded',
      'render.succeeded',
    ]);
    for (const secret of SECRETS) expect(shown).not.toContain(secret);

    // The sweep clears the ended items' sealed credentials; the file never held them in clear.
    await t.modules.jobs.service.sweep();
    const dir = t.config.dataDir;
    const files = (await readdir(dir)).filter((f) => f.startsWith('cardshot.sqlite'));
    expect(files.length).toBeGreaterThan(0);
    const bytes = Buffer.concat(await Promise.all(files.map((f) => readFile(path.join(dir, f))))).toString(
      'latin1',
    );
    for (const secret of SECRETS) expect(bytes).not.toContain(secret);
    const left = await t.store.db
      .withTables<{ job_items: { job_id: string; credentials_sealed: string | null } }>()
      .selectFrom('job_items')
      .select('credentials_sealed')
      .where('job_id', '=', id)
      .execute();
    expect(left.map((r) => r.credentials_sealed)).toEqual([null, null, null]);
  }, 120_000);

  it("account B's identical job without credentials gets its own capture, never A's", async () => {
    const b = await secondAccount(t, 'B');
    const url = `${site.url}/account?shared-b`;
    const a = json<{ id: string }>(
      await t.inject({ method: 'POST', url: '/jobs', payload: { items: [{ url, ...ALL }] } }),
    ).id;
    expect((await finished(a)).counts.succeeded).toBe(1);
    expect(await image(a, 0)).toEqual(GREEN);
    const res = await t.inject({
      method: 'POST',
      url: '/jobs',
      headers: { 'x-api-key': b.key },
      payload: { items: [{ url }] },
    });
    const bJob = json<{ id: string }>(res).id;
    expect((await finished(bJob, b.key)).counts.succeeded).toBe(1);
    expect(await image(bJob, 0, b.key)).toEqual(RED);
    // Nor through the synchronous route, which shares the cache with jobs.
    const sync = await t.inject({
      method: 'GET',
      url: `/render/url?url=${encodeURIComponent(url)}`,
      headers: { 'x-api-key': b.key },
    });
    expect(await pixelAt(sync.rawPayload, 10, 10)).toEqual(RED);
  }, 120_000);
});
