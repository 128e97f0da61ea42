import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUrlGuard, type LookupFn } from '../../src/net/url-guard.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { S3_KEY, type S3Server, startS3Server } from '../helpers/s3.js';
import { forwardTo, type SigV4Gate, startSigV4Gate } from '../helpers/sigv4-gate.js';
import { startWebhookReceiver, status, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { addEndpoint, verifyAt } from '../helpers/webhooks.js';

// "store": "s3" on a job: each succeeded item is uploaded to the target (real s3rver behind a
// SigV4 gate), an upload that fails fails its item with the storage's code, and the receiver
// gets delivery.succeeded / delivery.failed.
let t: TestApp;
let s3: S3Server;
let gate: SigV4Gate;
let receiver: WebhookReceiver;
let hold: HoldingProxy;
const lookup: LookupFn = async () => [{ address: '93.184.215.14', family: 4 }];

beforeAll(async () => {
  s3 = await startS3Server(['jobs']);
  gate = await startSigV4Gate(s3.port, { [S3_KEY.accessKeyId]: S3_KEY.secretAccessKey });
  receiver = await startWebhookReceiver(status(200));
  hold = await startHoldingProxy(gate.port);
  t = await startTestApp(
    {
      jobsWorkers: 2,
      storageAllowPrivateHosts: [gate.hostPort, `127.0.0.1:${hold.port}`],
      storageAttempts: 2,
    },
    {
      webhookGuard: createUrlGuard({ allowPrivateHosts: [receiver.hostPort], lookup }),
      storageBackoff: () => 10,
    },
  );
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  await hold?.close();
  await gate?.close();
  await s3?.close();
});

const addTarget = async (extra: Record<string, unknown> = {}) => {
  const res = await t.inject({
    method: 'POST',
    url: '/storage',
    payload: { endpoint: gate.endpoint, bucket: 'jobs', ...S3_KEY, ...extra },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
};

/** A bucket that answers nothing until told: each request waits, then goes on to the gate. */
interface HoldingProxy {
  port: number;
  /** Requests waiting. */
  waiting(): number;
  /** Lets every waiting request (and every later one) through. */
  release(): void;
  /** Each request forwarded, and the status the bucket answered it with (a failure's story). */
  forwarded: string[];
  close(): Promise<void>;
}

async function startHoldingProxy(upstreamPort: number): Promise<HoldingProxy> {
  let open = false;
  const held: Array<() => void> = [];
  const forwarded: string[] = [];
  const server: Server = createServer((req, res) => {
    const forward = () => {
      res.on('finish', () => forwarded.push(`${req.method} ${req.url} ${res.statusCode}`));
      res.on('close', () => {
        if (!res.writableFinished) forwarded.push(`${req.method} ${req.url} closed unanswered`);
      });
      forwardTo(upstreamPort, req, res);
    };
    if (open) forward();
    else held.push(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    waiting: () => held.length,
    forwarded,
    release() {
      open = true;
      for (const go of held.splice(0)) go();
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function finished(id: string): Promise<Record<string, unknown>> {
  const until = Date.now() + 30_000;
  for (;;) {
    const job = (await t.inject({ method: 'GET', url: `/jobs/${id}` })).json();
    if (['completed', 'failed', 'canceled'].includes(job.status as string)) return job;
    if (Date.now() > until) throw new Error(`job ${id} did not finish: ${JSON.stringify(job)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('POST /jobs with "store": "s3"', () => {
  it('uploads every item with its type and metadata, and announces each delivery', async () => {
    const storage = await addTarget({ prefix: 'run' });
    const endpoint = (
      await addEndpoint(t, {
        url: `${receiver.url}/hooks`,
        events: ['delivery.succeeded', 'delivery.failed'],
      })
    ).json as { id: string; secret: string };
    const res = await t.inject({
      method: 'POST',
      url: '/jobs',
      payload: {
        items: [
          { template: 'blog', title: 'Item zero' },
          { template: 'saas', title: 'Item one', format: 'webp' },
        ],
        store: 's3',
        storage,
        webhook: endpoint.id,
      },
    });
    expect(res.statusCode, res.body).toBe(202);
    const { id } = res.json() as { id: string };
    expect(await finished(id)).toMatchObject({ status: 'completed', counts: { succeeded: 2, failed: 0 } });
    const keys = [`run/${id}/0-blog.png`, `run/${id}/1-saas.webp`];
    expect((await s3.keys('jobs')).filter((k) => k.startsWith(`run/${id}/`))).toEqual(keys);
    for (const [index, key] of keys.entries()) {
      const local = await t.inject({ method: 'GET', url: `/jobs/${id}/items/${index}` });
      const stored = await s3.get('jobs', key);
      expect(stored.body.equals(local.rawPayload)).toBe(true);
      expect(stored.contentType).toBe(index === 0 ? 'image/png' : 'image/webp');
      expect(stored.metadata).toEqual({
        'cardshot-etag': local.headers.etag,
        'cardshot-job': id,
        'cardshot-index': String(index),
        'cardshot-source': index === 0 ? 'blog' : 'saas',
      });
    }
    const got = await receiver.waitFor(2, 20_000);
    const events = got.map((r) => {
      verifyAt(endpoint.secret, r);
      return JSON.parse(r.body) as { type: string; data: Record<string, unknown> };
    });
    expect(events.map((e) => e.type)).toEqual(['delivery.succeeded', 'delivery.succeeded']);
    expect(events.map((e) => e.data).sort((a, b) => Number(a.index) - Number(b.index))).toEqual(
      keys.map((key, index) => ({
        jobId: id,
        index,
        storageId: storage,
        bucket: 'jobs',
        key,
        url: `${gate.endpoint}/jobs/${key}`,
        etag: expect.stringMatching(/^"[0-9a-f]{32}"$/),
      })),
    );
    await t.inject({ method: 'DELETE', url: `/webhooks/${endpoint.id}` });
    await t.inject({ method: 'DELETE', url: `/storage/${storage}` });
  });

  it("fails each item whose upload fails with the storage's code, and says so in delivery.failed", async () => {
    const storage = await addTarget({ bucket: 'gone-bucket' });
    const endpoint = (await addEndpoint(t, { url: `${receiver.url}/fail`, events: ['delivery.failed'] }))
      .json as {
      id: string;
    };
    const res = await t.inject({
      method: 'POST',
      url: '/jobs',
      payload: { items: [{ template: 'blog', title: 'Nowhere to go' }], store: 's3', webhook: endpoint.id },
    });
    expect(res.statusCode, res.body).toBe(202);
    const { id } = res.json() as { id: string };
    expect(await finished(id)).toMatchObject({ status: 'failed', counts: { succeeded: 0, failed: 1 } });
    const items = (await t.inject({ method: 'GET', url: `/jobs/${id}/items` })).json();
    const error = `could not store the result in storage ${storage}: NoSuchBucket: The specified bucket does not exist (1 attempt)`;
    expect(items.items[0]).toMatchObject({ index: 0, status: 'failed', error });
    // The first test's two deliveries came first.
    const event = (await receiver.waitFor(3, 20_000))[2]!;
    expect(JSON.parse(event.body)).toMatchObject({
      type: 'delivery.failed',
      data: { jobId: id, index: 0, storageId: storage, code: 'NoSuchBucket', error },
    });
    await t.inject({ method: 'DELETE', url: `/webhooks/${endpoint.id}` });
    await t.inject({ method: 'DELETE', url: `/storage/${storage}` });
  });

  it('renders the next items while uploads wait on a slow bucket, and counts none succeeded before it is stored', async () => {
    const storage = await addTarget({ endpoint: `http://127.0.0.1:${hold.port}`, prefix: 'slow' });
    const res = await t.inject({
      method: 'POST',
      url: '/jobs',
      payload: {
        items: Array.from({ length: 4 }, (_, i) => ({ template: 'blog', title: `Slow ${i}` })),
        store: 's3',
        storage,
      },
    });
    expect(res.statusCode, res.body).toBe(202);
    const { id } = res.json() as { id: string };
    // Two workers: an item whose upload waits lends its worker to the next item, so all four
    // are rendered and their uploads sent, though the bucket has answered none.
    const until = Date.now() + 20_000;
    while (hold.waiting() < 4 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(hold.waiting()).toBe(4);
    const during = (await t.inject({ method: 'GET', url: `/jobs/${id}` })).json();
    expect(during).toMatchObject({ status: 'running', counts: { succeeded: 0, failed: 0 } });
    expect((await s3.keys('jobs')).filter((k) => k.startsWith(`slow/${id}/`))).toEqual([]);
    hold.release();
    expect(await finished(id)).toMatchObject({ status: 'completed', counts: { succeeded: 4, failed: 0 } });
    // What the bucket was asked and answered, and what the items say: a failure here (seen once
    // in CI, never since) must tell which side lost the objects.
    const story = async () =>
      JSON.stringify({
        forwarded: hold.forwarded,
        items: (await t.inject({ method: 'GET', url: `/jobs/${id}/items` })).json(),
        bucket: await s3.keys('jobs'),
      });
    const stored = (await s3.keys('jobs')).filter((k) => k.startsWith(`slow/${id}/`)).sort();
    const expected = [0, 1, 2, 3].map((i) => `slow/${id}/${i}-blog.png`);
    expect(stored, stored.join() === expected.join() ? '' : await story()).toEqual(expected);
    await t.inject({ method: 'DELETE', url: `/storage/${storage}` });
  });

  it('refuses a job whose store names no target of the account (400, nothing queued)', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/jobs',
      payload: { items: [{ template: 'blog', title: 'x' }], store: 's3', storage: 'st_notmine' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'storage: no target "st_notmine" on this account (see GET /storage)',
    });
    const bad = await t.inject({
      method: 'POST',
      url: '/jobs',
      payload: { items: [{ template: 'blog', title: 'x' }], store: 'ftp' },
    });
    expect(bad.json()).toEqual({
      error: 'store must be s3 (an S3-compatible target added with POST /storage)',
    });
  });
});
