import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUrlGuard } from '../../src/net/url-guard.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { dropSchema, postgresTestUrl, uniqueSchema } from '../helpers/services.js';
import { startWebhookReceiver, status, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { addEndpoint, secondAccount, settled, verifyAt } from '../helpers/webhooks.js';

// The same deliveries with DATABASE_URL: the store on PostgreSQL, the queue on pg-boss.
const pgUrl = await postgresTestUrl();
const schema = uniqueSchema();
let t: TestApp;
let receiver: WebhookReceiver;

beforeAll(async () => {
  if (!pgUrl) return;
  receiver = await startWebhookReceiver();
  t = await startTestApp(
    { databaseUrl: pgUrl, databaseSchema: schema },
    { webhookGuard: createUrlGuard({ allowPrivateHosts: [receiver.hostPort] }), webhookBackoff: () => 100 },
  );
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  if (pgUrl) {
    await dropSchema(pgUrl, schema);
    await dropSchema(pgUrl, `${schema}_pgboss`);
  }
});

describe.skipIf(!pgUrl)('webhooks on PostgreSQL and pg-boss', () => {
  it('delivers a job event to the endpoints that subscribe to it, retrying a 500 under the same webhook-id', async () => {
    const requestsOf = (id: string) => receiver.received.filter((r) => r.headers['webhook-id'] === id);
    receiver.answer((res, req, n) => {
      const first = requestsOf(String(req.headers['webhook-id'])).length === 1;
      status(first ? 500 : 200)(res, req, n);
    });
    const subscribed = await addEndpoint(t, { url: `${receiver.url}/jobs`, events: ['job.completed'] });
    const items = await addEndpoint(t, { url: `${receiver.url}/items`, events: ['render.failed'] });
    const other = await secondAccount(t);
    const theirs = await addEndpoint(t, { url: `${receiver.url}/theirs` }, other.key);
    expect([subscribed.status, items.status, theirs.status]).toEqual([201, 201, 201]);

    await t.modules.webhooks.publish(t.account.id, { type: 'job.completed', data: { id: 'job_pg' } });
    const id = subscribed.json.id as string;
    const log = (await t.inject({ method: 'GET', url: `/webhooks/${id}/deliveries` })).json();
    expect(log.deliveries).toHaveLength(1);
    const done = await settled(t, id, log.deliveries[0].id);
    expect(done.attempts.map((a) => a.status)).toEqual([500, 200]);
    const got = requestsOf(done.id);
    expect(got.map((r) => r.path)).toEqual(['/jobs', '/jobs']);
    expect(
      verifyAt(
        subscribed.json.secret as string,
        got[1]!,
        Number(got[1]!.headers['webhook-timestamp']) * 1000,
      ),
    ).toMatchObject({
      type: 'job.completed',
      data: { id: 'job_pg' },
    });
    // Neither the endpoint that wants items only nor the other account's got anything.
    expect(receiver.received.filter((r) => r.path !== '/jobs')).toEqual([]);
  });
});
