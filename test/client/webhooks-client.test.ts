import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cardshot, CardshotError, verifyWebhook } from '../../src/client/index.js';
import { createUrlGuard } from '../../src/net/url-guard.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startWebhookReceiver, status, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { secondAccount } from '../helpers/webhooks.js';

// `cardshot.webhooks.*` and `verifyWebhook` against a real server over HTTP (SQLite, the SQLite
// queue) and a real receiver on 127.0.0.1; a second, hostile account sees none of it.

let t: TestApp;
let receiver: WebhookReceiver;
let client: Cardshot;
let hostile: Cardshot;

beforeAll(async () => {
  receiver = await startWebhookReceiver(status(200));
  t = await startTestApp({}, { webhookGuard: createUrlGuard({ allowPrivateHosts: [receiver.hostPort] }) });
  const baseUrl = await t.listen();
  client = new Cardshot({ baseUrl, apiKey: t.key.key });
  hostile = new Cardshot({ baseUrl, apiKey: (await secondAccount(t)).key });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

describe('cardshot.webhooks', () => {
  it('creates, lists, tests, rotates and removes an endpoint; a test message verifies', async () => {
    const url = `${receiver.url}/hooks`;
    const made = await client.webhooks.create({ url, events: ['job.completed', 'render.failed'] });
    expect(made).toMatchObject({ url, events: ['job.completed', 'render.failed'], status: 'active' });
    expect(made.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const { secret: _s, ...view } = made;
    expect(await client.webhooks.list()).toContainEqual(view);
    expect(await client.webhooks.get(made.id)).toEqual(view);

    const sent = await client.webhooks.test(made.id);
    expect(sent).toMatchObject({ type: 'webhook.test', status: 'pending' });
    const [got] = await receiver.waitFor(receiver.received.length + 1);
    const last = receiver.received.at(-1)!;
    expect(got).toBeDefined();
    const event = await verifyWebhook(last.body, last.headers, made.secret);
    expect(event).toMatchObject({ type: 'webhook.test', data: { endpointId: made.id } });
    expect(last.headers['webhook-id']).toBe(sent.id);

    // The log shows the attempt; redeliver sends the same message (same webhook-id) again.
    let page = await client.webhooks.deliveries(made.id, { limit: 10 });
    for (let i = 0; i < 100 && page.deliveries[0]?.status === 'pending'; i++) {
      await new Promise((r) => setTimeout(r, 25));
      page = await client.webhooks.deliveries(made.id, { limit: 10 });
    }
    expect(page.deliveries[0]).toMatchObject({ id: sent.id, status: 'succeeded' });
    expect(page.deliveries[0]!.attempts[0]).toMatchObject({
      attempt: 1,
      status: 200,
      response: 'answer 200',
    });
    const again = await client.webhooks.redeliver(made.id, sent.id);
    expect(again.id).toBe(sent.id);
    await receiver.waitFor(receiver.received.length + 1);
    expect(receiver.received.at(-1)!.headers['webhook-id']).toBe(sent.id);

    const rotated = await client.webhooks.rotate(made.id);
    expect(rotated.secret).not.toBe(made.secret);
    expect(Date.parse(rotated.previousSecretExpiresAt!)).toBeGreaterThan(Date.now() + 23 * 3_600_000);

    await client.webhooks.remove(made.id);
    expect((await client.webhooks.list()).map((e) => e.id)).not.toContain(made.id);
    const gone = await client.webhooks.get(made.id).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(CardshotError);
    expect(gone).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('refuses a private URL with the server message, as a CardshotError', async () => {
    const err = await client.webhooks.create({ url: 'http://10.0.0.1/hook' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CardshotError);
    expect(err).toMatchObject({
      status: 400,
      code: 'bad_request',
      message:
        'url must be a public address: Cardshot does not call private, loopback or link-local addresses, or names that do not resolve',
    });
  });

  it("shows another account's endpoint to no one else: 404 on every call", async () => {
    const mine = await client.webhooks.create({ url: `${receiver.url}/mine` });
    expect(await hostile.webhooks.list()).toEqual([]);
    for (const call of [
      () => hostile.webhooks.get(mine.id),
      () => hostile.webhooks.rotate(mine.id),
      () => hostile.webhooks.test(mine.id),
      () => hostile.webhooks.deliveries(mine.id),
      () => hostile.webhooks.remove(mine.id),
    ]) {
      await expect(call()).rejects.toMatchObject({ status: 404, code: 'not_found' });
    }
    expect((await client.webhooks.get(mine.id)).id).toBe(mine.id);
  });
});
