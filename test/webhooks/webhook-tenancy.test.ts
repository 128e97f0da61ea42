import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUrlGuard } from '../../src/net/url-guard.js';
import type { DeliveryView } from '../../src/webhooks/views.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { hang, startWebhookReceiver, status, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { addEndpoint, secondAccount, settled } from '../helpers/webhooks.js';

// A hostile second account whose receiver hangs: it holds its own account's delivery slots and
// its own waiting bound, never account A's.
let t: TestApp;
let good: WebhookReceiver;
let bad: WebhookReceiver;
let hostile: { accountId: string; key: string };

const TIMEOUT_MS = 3000;
const MAX_WAITING = 6;

beforeAll(async () => {
  good = await startWebhookReceiver(status(200));
  bad = await startWebhookReceiver(hang);
  t = await startTestApp(
    { webhookTimeoutMs: TIMEOUT_MS, webhookMaxWaiting: MAX_WAITING, webhookConcurrency: 4 },
    {
      webhookGuard: createUrlGuard({ allowPrivateHosts: [good.hostPort, bad.hostPort] }),
      // Long enough that B's failed attempts wait instead of coming straight back.
      webhookBackoff: () => 60_000,
    },
  );
  hostile = await secondAccount(t, 'Hostile');
});
afterAll(async () => {
  await t?.close();
  await good?.close();
  await bad?.close();
});

describe('a hostile account with a hanging receiver', () => {
  it("does not delay account A's deliveries, and is held to its own waiting bound", async () => {
    const b = await addEndpoint(t, { url: `${bad.url}/hang` }, hostile.key);
    expect(b.status).toBe(201);
    const bId = b.json.id as string;
    const asB = { 'x-api-key': hostile.key };
    // B fills its waiting bound with deliveries its receiver will hold for the whole time-out.
    for (let i = 0; i < MAX_WAITING; i++) {
      const res = await t.inject({ method: 'POST', url: `/webhooks/${bId}/test`, headers: asB });
      expect(res.statusCode).toBe(202);
    }
    const over = await t.inject({ method: 'POST', url: `/webhooks/${bId}/test`, headers: asB });
    expect(over.statusCode).toBe(429);
    expect(over.headers['retry-after']).toBe('60');
    expect(over.json()).toEqual({
      error: `This account has ${MAX_WAITING} webhook deliveries waiting, the most it may have; retry once they are delivered`,
    });
    // A job event past the bound is logged as not sent rather than queued.
    await t.modules.webhooks.publish(hostile.accountId, { type: 'job.completed', data: { id: 'job_b' } });
    const bLog = (
      await t.inject({ method: 'GET', url: `/webhooks/${bId}/deliveries?limit=100`, headers: asB })
    ).json();
    expect(bLog.deliveries[0]).toMatchObject({
      type: 'job.completed',
      status: 'failed',
      attempts: [
        {
          attempt: 0,
          status: null,
          error: `Not sent: ${MAX_WAITING} deliveries of this account were already waiting, the most it may have`,
        },
      ],
    });
    await bad.waitFor(2);

    // A, meanwhile, with B's receiver holding connections open: delivered at once.
    const a = await addEndpoint(t, { url: `${good.url}/a` });
    const aId = a.json.id as string;
    const started = Date.now();
    const sent = (await t.inject({ method: 'POST', url: `/webhooks/${aId}/test` })).json();
    const done: DeliveryView = await settled(t, aId, sent.id, { timeoutMs: TIMEOUT_MS * 3 });
    const took = Date.now() - started;
    expect(done.status).toBe('succeeded');
    expect(took).toBeLessThan(TIMEOUT_MS / 2);
    // B's receiver had at most 2 of B's attempts at once (the per-account share of a node).
    expect(bad.received.length).toBeLessThanOrEqual(2);
    expect(good.received.filter((r) => r.headers['webhook-id'] === sent.id)).toHaveLength(1);
  });
});
