import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUrl } from '../../src/auth/signing.js';
import { createUrlGuard, type LookupFn } from '../../src/net/url-guard.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { startWebhookReceiver, status, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { addEndpoint, secondAccount, settled, verifyAt } from '../helpers/webhooks.js';

// The /webhooks API on a real app (SQLite, the SQLite queue, real receivers on 127.0.0.1).
let t: TestApp;
let receiver: WebhookReceiver;
let clock: FakeClock;
let other: { accountId: string; key: string };

// Public names for the guard's checks; the receivers are admitted by host:port only.
const lookup: LookupFn = async (host) => {
  if (host === 'internal.example.com') return [{ address: '10.1.2.3', family: 4 }];
  return [{ address: '93.184.215.14', family: 4 }];
};

beforeAll(async () => {
  receiver = await startWebhookReceiver(status(200));
  clock = fakeClock(Date.now());
  t = await startTestApp(
    {},
    { clock, webhookGuard: createUrlGuard({ allowPrivateHosts: [receiver.hostPort], lookup }) },
  );
  other = await secondAccount(t);
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

const hookUrl = () => `${receiver.url}/hooks/cardshot`;

describe('POST /webhooks', () => {
  it('creates an endpoint and shows its whsec_ secret once, never again', async () => {
    const { status: code, json } = await addEndpoint(t, {
      url: hookUrl(),
      events: ['job.completed', 'render.failed'],
    });
    expect(code).toBe(201);
    expect(json).toEqual({
      id: expect.stringMatching(/^ep_[0-9A-Za-z]{16}$/),
      url: hookUrl(),
      events: ['job.completed', 'render.failed'],
      status: 'active',
      disabledAt: null,
      disabledReason: null,
      previousSecretExpiresAt: null,
      createdAt: new Date(clock.now()).toISOString(),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const list = await t.inject({ method: 'GET', url: '/webhooks' });
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(json.secret as string);
    const { secret: _s, ...view } = json;
    expect(list.json().endpoints).toContainEqual(view);
    const one = await t.inject({ method: 'GET', url: `/webhooks/${json.id}` });
    expect(one.json()).toEqual(view);
    // Nor in the database in clear, nor in any log line.
    expect(JSON.stringify(await t.store.listEndpoints(t.account.id))).not.toContain(
      (json.secret as string).slice(6),
    );
    expect(JSON.stringify(t.logs)).not.toContain((json.secret as string).slice(6));
  });

  it('subscribes to the three job events when no events are named', async () => {
    const { json } = await addEndpoint(t, { url: hookUrl() });
    expect(json.events).toEqual(['job.completed', 'job.failed', 'job.canceled']);
  });

  it.each([
    [{}, 'url is required: the https:// (or http://) address to POST events to'],
    [{ url: 'ftp://example.com/x' }, 'url must be an absolute http:// or https:// URL'],
    [{ url: `https://example.com/${'a'.repeat(2040)}` }, 'url must be at most 2048 characters'],
    [
      { url: 'https://user:pw@example.com/' },
      'url must not carry a user name or password; verify the signature instead',
    ],
    [
      { url: 'https://example.com/', events: ['job.done'] },
      'events: "job.done" is not an event; use job.completed, job.failed, job.canceled, render.succeeded, render.failed, delivery.succeeded, delivery.failed',
    ],
    [
      { url: 'https://example.com/', events: [] },
      'events must be a non-empty list of: job.completed, job.failed, job.canceled, render.succeeded, render.failed, delivery.succeeded, delivery.failed',
    ],
    [{ url: 'https://example.com/', secret: 'mine' }, 'Unknown field "secret"; send url and events'],
    [
      { url: 'http://169.254.169.254/latest/meta-data/' },
      'url must be a public address: Cardshot does not call private, loopback or link-local addresses, or names that do not resolve',
    ],
    [
      { url: 'https://internal.example.com/hook' },
      'url must be a public address: Cardshot does not call private, loopback or link-local addresses, or names that do not resolve',
    ],
    [{ url: 'http://127.0.0.1:6379/' }, 'url must use port 80 or 443 (the default ports of http and https)'],
  ])('refuses %j with 400', async (body, error) => {
    const res = await t.inject({ method: 'POST', url: '/webhooks', payload: body });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error });
  });

  it('needs an API key, and a signed URL manages nothing', async () => {
    const res = await t.inject({ method: 'GET', url: '/webhooks', auth: false });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Missing or invalid API key' });
    const url = signUrl('/webhooks', {
      keyId: t.key.record.id,
      signingSecret: t.key.signingSecret,
      expiresAt: Math.floor(clock.now() / 1000) + 600,
    });
    const signed = await t.inject({ method: 'GET', url, auth: false });
    expect([signed.statusCode, signed.json()]).toEqual([401, { error: 'Missing or invalid API key' }]);
  });

  it('holds an account to CARDSHOT_WEBHOOK_MAX_ENDPOINTS (409), the other account unaffected', async () => {
    const small = await startTestApp(
      { webhookMaxEndpoints: 2 },
      { webhookGuard: createUrlGuard({ allowPrivateHosts: [receiver.hostPort], lookup }) },
    );
    try {
      for (let i = 0; i < 2; i++) expect((await addEndpoint(small, { url: hookUrl() })).status).toBe(201);
      const third = await addEndpoint(small, { url: hookUrl() });
      expect(third).toEqual({
        status: 409,
        json: {
          error: 'This account already has 2 webhook endpoints, the most it may have (2); delete one first',
        },
      });
      const b = await secondAccount(small);
      expect((await addEndpoint(small, { url: hookUrl() }, b.key)).status).toBe(201);
    } finally {
      await small.close();
    }
  });
});

describe("another account's endpoints", () => {
  it('cannot be seen, deleted, rotated, tested or read: 404 as if missing', async () => {
    const { json } = await addEndpoint(t, { url: hookUrl() });
    const id = json.id as string;
    const as = { 'x-api-key': other.key };
    const missing = { error: `No webhook endpoint "${id}"` };
    expect((await t.inject({ method: 'GET', url: '/webhooks', headers: as })).json()).toEqual({
      endpoints: [],
    });
    for (const [method, url] of [
      ['GET', `/webhooks/${id}`],
      ['DELETE', `/webhooks/${id}`],
      ['POST', `/webhooks/${id}/rotate`],
      ['POST', `/webhooks/${id}/test`],
      ['GET', `/webhooks/${id}/deliveries`],
      ['POST', `/webhooks/${id}/deliveries/msg_x/redeliver`],
    ] as const) {
      const res = await t.inject({ method, url, headers: as });
      expect([method, url, res.statusCode, res.json()]).toEqual([method, url, 404, missing]);
    }
    // Still there, untouched, for its owner.
    expect((await t.inject({ method: 'GET', url: `/webhooks/${id}` })).statusCode).toBe(200);
    expect(receiver.received.filter((r) => r.body.includes(id))).toEqual([]);
  });

  it("cannot name it in a job (the jobs area's check) ", async () => {
    const { json } = await addEndpoint(t, { url: hookUrl() });
    await expect(t.modules.webhooks.checkEndpoint(other.accountId, json.id as string)).rejects.toThrow(
      `webhook: no endpoint "${json.id}" on this account (see GET /webhooks)`,
    );
    await expect(t.modules.webhooks.checkEndpoint(t.account.id, json.id as string)).resolves.toBeUndefined();
  });
});

describe('test, deliveries and redeliver', () => {
  it('sends a signed webhook.test event, logs the attempt, and redelivers it under the same webhook-id', async () => {
    const { json } = await addEndpoint(t, { url: hookUrl() });
    const id = json.id as string;
    receiver.answer(status(200));
    const sent = await t.inject({ method: 'POST', url: `/webhooks/${id}/test` });
    expect(sent.statusCode).toBe(202);
    const delivery = sent.json();
    expect(delivery).toMatchObject({
      id: expect.stringMatching(/^msg_/),
      type: 'webhook.test',
      status: 'pending',
      attempts: [],
    });

    const done = await settled(t, id, delivery.id);
    const got = receiver.received.find((r) => r.headers['webhook-id'] === delivery.id);
    expect(got!.path).toBe('/hooks/cardshot');
    expect(got!.headers['webhook-id']).toBe(delivery.id);
    expect(verifyAt(json.secret as string, got!, clock.now())).toEqual({
      type: 'webhook.test',
      timestamp: new Date(clock.now()).toISOString(),
      data: { endpointId: id, message: 'A test event from Cardshot' },
    });
    expect(done).toMatchObject({ status: 'succeeded', nextAttemptAt: null });
    expect(done.attempts).toEqual([
      {
        attempt: 1,
        at: expect.any(String),
        durationMs: expect.any(Number),
        status: 200,
        response: 'answer 200',
        error: null,
      },
    ]);

    const again = await t.inject({
      method: 'POST',
      url: `/webhooks/${id}/deliveries/${delivery.id}/redeliver`,
    });
    expect(again.statusCode).toBe(202);
    const second = await settled(t, id, delivery.id, {
      done: (d) => d.attempts.length === 2 && d.status !== 'pending',
    });
    expect(second.attempts.map((a) => [a.attempt, a.status])).toEqual([
      [1, 200],
      [2, 200],
    ]);
    const redelivered = receiver.received.filter((r) => r.headers['webhook-id'] === delivery.id)[1]!;
    expect(redelivered.headers['webhook-id']).toBe(delivery.id);
    expect(redelivered.body).toBe(got!.body);
  });

  it('pages the delivery log newest first with a cursor', async () => {
    const { json } = await addEndpoint(t, { url: hookUrl() });
    const id = json.id as string;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      clock.advance(1000);
      ids.push((await t.inject({ method: 'POST', url: `/webhooks/${id}/test` })).json().id);
    }
    const page1 = (await t.inject({ method: 'GET', url: `/webhooks/${id}/deliveries?limit=2` })).json();
    expect(page1.deliveries.map((d: { id: string }) => d.id)).toEqual([ids[2], ids[1]]);
    expect(page1.nextCursor).toBe(ids[1]);
    const page2 = (
      await t.inject({ method: 'GET', url: `/webhooks/${id}/deliveries?limit=2&cursor=${page1.nextCursor}` })
    ).json();
    expect(page2).toMatchObject({ deliveries: [{ id: ids[0] }], nextCursor: null });
    const bad = await t.inject({ method: 'GET', url: `/webhooks/${id}/deliveries?limit=500` });
    expect([bad.statusCode, bad.json()]).toEqual([400, { error: 'limit must be an integer from 1 to 100' }]);
  });

  it('deletes an endpoint: 204, then 404, and its queued attempts send nothing', async () => {
    const { json } = await addEndpoint(t, { url: hookUrl() });
    const id = json.id as string;
    const del = await t.inject({ method: 'DELETE', url: `/webhooks/${id}` });
    expect([del.statusCode, del.body]).toEqual([204, '']);
    const again = await t.inject({ method: 'DELETE', url: `/webhooks/${id}` });
    expect([again.statusCode, again.json()]).toEqual([404, { error: `No webhook endpoint "${id}"` }]);
  });
});

describe('rotation', () => {
  it('signs with the old and the new secret for 24 hours, then with the new one only', async () => {
    const { json } = await addEndpoint(t, { url: hookUrl() });
    const id = json.id as string;
    const oldSecret = json.secret as string;
    // As many HTTP clients send it: a JSON Content-Type on a POST without a body.
    const rotated = await t.inject({
      method: 'POST',
      url: `/webhooks/${id}/rotate`,
      headers: { 'content-type': 'application/json' },
    });
    expect(rotated.statusCode).toBe(200);
    const newSecret = rotated.json().secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect(rotated.json().previousSecretExpiresAt).toBe(new Date(clock.now() + 86_400_000).toISOString());

    const deliver = async () => {
      const d = (await t.inject({ method: 'POST', url: `/webhooks/${id}/test` })).json();
      await settled(t, id, d.id);
      return receiver.received.find((r) => r.headers['webhook-id'] === d.id)!;
    };
    const both = [await deliver()];
    clock.advance(23 * 3_600_000 + 59 * 60_000);
    both.push(await deliver());
    for (const got of both) {
      expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
      const at = Number(got.headers['webhook-timestamp']) * 1000;
      expect(verifyAt(oldSecret, got, at)).toMatchObject({ type: 'webhook.test' });
      expect(verifyAt(newSecret, got, at)).toMatchObject({ type: 'webhook.test' });
    }
    clock.advance(2 * 60_000);
    const after = await deliver();
    const at = Number(after.headers['webhook-timestamp']) * 1000;
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifyAt(newSecret, after, at)).toMatchObject({ type: 'webhook.test' });
    expect(() => verifyAt(oldSecret, after, at)).toThrow();
    expect(
      (await t.inject({ method: 'GET', url: `/webhooks/${id}` })).json().previousSecretExpiresAt,
    ).toBeNull();
  });
});
