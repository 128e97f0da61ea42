import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUrlGuard, type LookupFn } from '../../src/net/url-guard.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startWebhookReceiver, status, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { addEndpoint, secondAccount, verifyAt } from '../helpers/webhooks.js';

// A job's events reach a real receiver on 127.0.0.1 through the webhooks area, signed, with
// links the receiver fetches without a key.
let t: TestApp;
let receiver: WebhookReceiver;
const lookup: LookupFn = async () => [{ address: '93.184.215.14', family: 4 }];

beforeAll(async () => {
  receiver = await startWebhookReceiver(status(200));
  t = await startTestApp(
    { jobsWorkers: 2 },
    { webhookGuard: createUrlGuard({ allowPrivateHosts: [receiver.hostPort], lookup }) },
  );
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const json = <T = Record<string, unknown>>(res: { body: string }) => JSON.parse(res.body) as T;

describe('job events', () => {
  it('sends render.succeeded per item and job.completed to the endpoint the job names, with working links', async () => {
    const made = await addEndpoint(t, {
      url: `${receiver.url}/hooks`,
      events: ['job.completed', 'job.failed', 'job.canceled', 'render.succeeded', 'render.failed'],
    });
    expect(made.status).toBe(201);
    const endpoint = made.json as { id: string; secret: string };
    const res = await t.inject({
      method: 'POST',
      url: '/jobs',
      payload: {
        items: [
          { template: 'blog', title: 'Event one' },
          { template: 'blog', title: 'Event two' },
        ],
        webhook: endpoint.id,
        metadata: { order: 'A-17' },
      },
    });
    expect(res.statusCode).toBe(202);
    const { id } = json<{ id: string }>(res);
    const got = await receiver.waitFor(3, 20_000);
    const bodies = got.map((r) => {
      verifyAt(endpoint.secret, r);
      return JSON.parse(r.body) as { type: string; data: Record<string, unknown> };
    });
    expect(bodies.map((b) => b.type).sort()).toEqual([
      'job.completed',
      'render.succeeded',
      'render.succeeded',
    ]);
    const done = bodies.find((b) => b.type === 'job.completed')!;
    expect(done.data).toMatchObject({
      id,
      status: 'completed',
      counts: { queued: 0, running: 0, succeeded: 2, failed: 0, canceled: 0 },
      metadata: { order: 'A-17' },
    });
    const item = bodies.find((b) => b.type === 'render.succeeded')!.data as {
      jobId: string;
      index: number;
      result: { url: string; etag: string };
    };
    expect(item.jobId).toBe(id);
    // The receiver fetches the image with the link alone.
    const link = new URL(item.result.url);
    const image = await t.inject({ method: 'GET', url: `${link.pathname}${link.search}`, auth: false });
    expect(image.statusCode).toBe(200);
    expect(image.headers.etag).toBe(item.result.etag);
    const zip = new URL(done.data.resultsUrl as string);
    const download = await t.inject({ method: 'GET', url: `${zip.pathname}${zip.search}`, auth: false });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('application/zip');
  });

  it("refuses a job naming an endpoint that is not the account's, before anything is queued", async () => {
    const other = await secondAccount(t);
    const theirs = await addEndpoint(
      t,
      { url: `${receiver.url}/theirs`, events: ['job.completed'] },
      other.key,
    );
    const res = await t.inject({
      method: 'POST',
      url: '/jobs',
      payload: { items: [{ template: 'blog', title: 'x' }], webhook: (theirs.json as { id: string }).id },
    });
    expect(res.statusCode).toBe(400);
    expect(json(res)).toEqual({
      error: `webhook: no endpoint ${JSON.stringify((theirs.json as { id: string }).id)} on this account (see GET /webhooks)`,
    });
    const list = json<{ jobs: unknown[] }>(await t.inject({ method: 'GET', url: '/jobs' }));
    expect(list.jobs).toHaveLength(1);
  });
});
