import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUrlGuard, type LookupFn } from '../../src/net/url-guard.js';
import type { DeliveryView } from '../../src/webhooks/views.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { sample } from '../helpers/metrics.js';
import {
  drop,
  hang,
  startWebhookReceiver,
  status,
  type WebhookReceiver,
} from '../helpers/webhook-receiver.js';
import { addEndpoint, settled, verifyAt } from '../helpers/webhooks.js';

// The webhook fault rows of docs/reliability.md, each against a real receiver on 127.0.0.1:
// a receiver that answers 500, hangs, redirects to the metadata address, drops the connection,
// says 410 Gone or asks for a Retry-After; a name that rebinds to loopback after the check.
let t: TestApp;
let receiver: WebhookReceiver;
let clock: FakeClock;
let resolved = 0;

const TIMEOUT_MS = 400;
const BACKOFF_MS = 100;

// rebind.example.com answers a public address to the check at creation, then loopback.
const lookup: LookupFn = async (host) => {
  if (host === 'rebind.example.com' && resolved++ > 0) return [{ address: '127.0.0.1', family: 4 }];
  return [{ address: '93.184.215.14', family: 4 }];
};

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  clock = fakeClock(Date.now());
  t = await startTestApp(
    { webhookTimeoutMs: TIMEOUT_MS, webhookRetryHours: 1, metricsToken: 'metrics-token-0123456789' },
    {
      clock,
      webhookGuard: createUrlGuard({ allowPrivateHosts: [receiver.hostPort], lookup }),
      webhookBackoff: () => BACKOFF_MS,
    },
  );
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

/** A new endpoint on the receiver, a job event published to it, and that event's delivery id. */
async function publishTo(path: string): Promise<{ endpointId: string; secret: string; deliveryId: string }> {
  const { json } = await addEndpoint(t, { url: `${receiver.url}${path}` });
  const endpointId = json.id as string;
  await t.modules.webhooks.publish(t.account.id, {
    type: 'job.completed',
    data: { id: 'job_1', resultsUrl: 'https://cards.example.com/jobs/job_1/results.zip' },
    endpointId,
  });
  const log = (await t.inject({ method: 'GET', url: `/webhooks/${endpointId}/deliveries` })).json();
  return { endpointId, secret: json.secret as string, deliveryId: log.deliveries[0].id };
}

const requestsOf = (id: string) => receiver.received.filter((r) => r.headers['webhook-id'] === id);
const summary = (d: DeliveryView) => d.attempts.map((a) => [a.status, a.error]);

describe('a receiver that fails, then answers 200', () => {
  it.each([
    ['answers 500', status(500), [500, 'HTTP 500: only a 2xx answer counts as delivered']],
    ['hangs', hang, [null, `No answer within ${TIMEOUT_MS} ms`]],
    [
      'redirects to 169.254.169.254',
      status(302, { location: 'http://169.254.169.254/latest/meta-data/' }),
      [302, 'HTTP 302: redirects are not followed; give the endpoint its final URL'],
    ],
    ['drops the connection', drop, [null, 'The connection failed or was closed before an answer came']],
  ] as const)(
    '%s: the attempt is logged, retried under the same webhook-id and body, then delivered',
    async (_name, fault, first) => {
      receiver.answer((res, req, n) => {
        const isFirst = requestsOf(String(req.headers['webhook-id'])).length === 1;
        (isFirst ? fault : status(200))(res, req, n);
      });
      const { endpointId, secret, deliveryId } = await publishTo('/flaky');
      const done = await settled(t, endpointId, deliveryId);
      expect(done.status).toBe('succeeded');
      expect(summary(done)).toEqual([first, [200, null]]);
      const [a, b] = requestsOf(deliveryId);
      expect(requestsOf(deliveryId)).toHaveLength(2);
      expect(b!.body).toBe(a!.body);
      expect(b!.at - a!.at).toBeGreaterThanOrEqual(BACKOFF_MS);
      for (const got of [a!, b!]) {
        expect(verifyAt(secret, got, Number(got.headers['webhook-timestamp']) * 1000)).toEqual({
          type: 'job.completed',
          timestamp: new Date(clock.now()).toISOString(),
          data: { id: 'job_1', resultsUrl: 'https://cards.example.com/jobs/job_1/results.zip' },
        });
      }
    },
  );
});

describe('a receiver that says stop or wait', () => {
  it('410 Gone disables the endpoint: no retry, nothing more published to it, tests refused', async () => {
    receiver.answer(status(410));
    const { endpointId, deliveryId } = await publishTo('/gone');
    const done = await settled(t, endpointId, deliveryId);
    expect(done.status).toBe('failed');
    expect(summary(done)).toEqual([
      [410, 'HTTP 410 Gone: the endpoint is disabled, nothing more is sent to it'],
    ]);
    const ep = (await t.inject({ method: 'GET', url: `/webhooks/${endpointId}` })).json();
    expect(ep).toMatchObject({ status: 'disabled', disabledReason: 'The receiver answered 410 Gone' });
    receiver.answer(status(200));
    await t.modules.webhooks.publish(t.account.id, { type: 'job.failed', data: { id: 'job_2' }, endpointId });
    const log = (await t.inject({ method: 'GET', url: `/webhooks/${endpointId}/deliveries` })).json();
    expect(log.deliveries.map((d: DeliveryView) => d.id)).toEqual([deliveryId]);
    const test = await t.inject({ method: 'POST', url: `/webhooks/${endpointId}/test` });
    expect([test.statusCode, test.json()]).toEqual([
      409,
      { error: `Endpoint ${endpointId} is disabled (its receiver answered 410 Gone); add a new one` },
    ]);
    await expect(t.modules.webhooks.checkEndpoint(t.account.id, endpointId)).rejects.toThrow(
      `webhook: endpoint ${endpointId} is disabled (its receiver answered 410 Gone); add a new one`,
    );
  });

  it('Retry-After is honoured over a shorter back-off', async () => {
    receiver.answer((res, req, n) => {
      const isFirst = requestsOf(String(req.headers['webhook-id'])).length === 1;
      (isFirst ? status(503, { 'retry-after': '1' }) : status(200))(res, req, n);
    });
    const { endpointId, deliveryId } = await publishTo('/busy');
    await settled(t, endpointId, deliveryId, { timeoutMs: 5000 });
    const [a, b] = requestsOf(deliveryId);
    expect(b!.at - a!.at).toBeGreaterThanOrEqual(950);
  });

  it('gives up once the retry window has passed: failed, no next attempt', async () => {
    receiver.answer(status(500));
    const { endpointId, deliveryId } = await publishTo('/down');
    await settled(t, endpointId, deliveryId, { done: (d) => d.attempts.length >= 1 });
    clock.advance(60 * 60_000);
    const done = await settled(t, endpointId, deliveryId);
    expect(done).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(done.attempts.length).toBeGreaterThanOrEqual(2);
    receiver.answer(status(200));
  });
});

describe('metrics', () => {
  it('count every attempt by outcome', async () => {
    const text = await t.modules.metrics.text();
    const count = (outcome: string) =>
      sample(text, 'cardshot_webhook_attempt_duration_seconds_count', { outcome });
    // The faults above: each of these happened at least once, and every retry was delivered.
    for (const outcome of ['http_status', 'timeout', 'redirect', 'network', 'gone']) {
      expect([outcome, count(outcome) >= 1]).toEqual([outcome, true]);
    }
    expect(count('delivered')).toBeGreaterThanOrEqual(5);
  });
});

describe('the URL guard at delivery time', () => {
  it('refuses a name that rebinds to loopback after the check at creation, and logs why', async () => {
    const before = receiver.received.length;
    const { status: code, json } = await addEndpoint(t, { url: 'http://rebind.example.com/hook' });
    expect(code).toBe(201);
    const endpointId = json.id as string;
    const d = (await t.inject({ method: 'POST', url: `/webhooks/${endpointId}/test` })).json();
    const log = await settled(t, endpointId, d.id, { done: (x) => x.attempts.length >= 1 });
    expect(log.attempts[0]).toMatchObject({
      status: null,
      error: 'The URL is not allowed: webhooks go to public addresses only',
    });
    expect(receiver.received.length).toBe(before);
    await t.inject({ method: 'DELETE', url: `/webhooks/${endpointId}` });
  });
});
