import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveSecrets } from '../../src/auth/secret.js';
import { createJobQueue } from '../../src/jobs/queue/open.js';
import type { JobQueue, QueueWorker } from '../../src/jobs/queue/types.js';
import { createGuardedPoster } from '../../src/net/post.js';
import { createUrlGuard } from '../../src/net/url-guard.js';
import { openStore } from '../../src/storage/open.js';
import type { Store } from '../../src/storage/store.js';
import {
  createDeliveries,
  type Deliveries,
  type DeliveryTask,
  deliveryQueuePolicy,
  sealContext,
  WEBHOOK_QUEUE,
} from '../../src/webhooks/deliveries.js';
import { newWebhookSecret } from '../../src/webhooks/signing.js';
import type { EndpointRecord, MessageRecord } from '../../src/webhooks/store.js';
import { fakeClock } from '../helpers/clock.js';
import { capturedLogger } from '../helpers/logs.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// A delivery whose queue task was lost (its add failed, or it went to the dead letters) is
// found by the sweeper and queued again; one past its window is ended. Real store, real queue.
let dir: string;
let store: Store;
let queue: JobQueue;
let worker: QueueWorker;
let receiver: WebhookReceiver;
let deliveries: Deliveries;
const clock = fakeClock(Date.now());
const secrets = deriveSecrets('s'.repeat(40));
const DAY = 24 * 3_600_000;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-sweep-'));
  receiver = await startWebhookReceiver();
  store = await openStore({ databaseUrl: '', dataDir: dir, databaseSchema: 'public' });
  queue = await createJobQueue({ databaseUrl: '', dataDir: dir, databaseSchema: 'public' });
  deliveries = createDeliveries({
    store,
    secrets,
    queue,
    poster: createGuardedPoster({ guard: createUrlGuard({ allowPrivateHosts: [receiver.hostPort] }) }),
    clock,
    log: capturedLogger().log,
    config: { timeoutMs: 2000, retryMs: DAY, maxWaiting: 100 },
  });
  await queue.createQueue(WEBHOOK_QUEUE, deliveryQueuePolicy(2000));
  worker = await queue.work<DeliveryTask>(
    WEBHOOK_QUEUE,
    { concurrency: 2, groupLimit: () => 2 },
    (task, signal) => deliveries.run(task, signal),
  );
});
afterAll(async () => {
  await worker?.stop();
  await queue?.close();
  await store?.close();
  await receiver?.close();
  await rm(dir, { recursive: true, force: true });
});

async function lostMessage(createdAt: number): Promise<{ endpoint: EndpointRecord; message: MessageRecord }> {
  const account = {
    id: `acc_${Math.random().toString(36).slice(2, 18)}`,
    name: 'A',
    email: `${Math.random()}@a.test`,
    plan: 'pro',
    createdAt: 1,
  };
  await store.createAccount(account);
  const id = `ep_${Math.random().toString(36).slice(2, 18)}`;
  const endpoint: EndpointRecord = {
    id,
    accountId: account.id,
    url: `${receiver.url}/swept`,
    events: ['job.completed'],
    secretSealed: secrets.seal(newWebhookSecret(), sealContext(id)),
    previousSealed: null,
    previousUntil: null,
    disabledAt: null,
    disabledReason: null,
    createdAt,
  };
  await store.insertEndpoint(endpoint);
  const message: MessageRecord = {
    id: `msg_${Math.random().toString(36).slice(2, 22)}`,
    endpointId: id,
    accountId: account.id,
    type: 'job.completed',
    body: '{"type":"job.completed","timestamp":"2026-01-15T12:00:00.000Z","data":{}}',
    createdAt,
    status: 'pending',
    attempts: 0,
    seriesStartedAt: createdAt,
    nextAttemptAt: createdAt,
  };
  // Stored, never queued: what a failed add leaves behind.
  await store.insertMessage(message);
  return { endpoint, message };
}

async function statusOf(m: MessageRecord): Promise<MessageRecord | undefined> {
  const end = Date.now() + 5000;
  for (;;) {
    const now = await store.getMessage(m.accountId, m.id);
    if (now?.status !== 'pending' || Date.now() > end) return now;
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('the sweeper', () => {
  it('queues a lost delivery again, once however many sweeps run, and leaves fresh ones alone', async () => {
    const { message } = await lostMessage(clock.now() - 60 * 60_000);
    const fresh = await lostMessage(clock.now() - 1000);
    const swept = await Promise.all([deliveries.sweep(10 * 60_000), deliveries.sweep(10 * 60_000)]);
    expect(swept).toEqual([1, 1]);
    expect(await statusOf(message)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === message.id)).toHaveLength(1);
    expect(await store.getMessage(fresh.message.accountId, fresh.message.id)).toMatchObject({
      status: 'pending',
    });
  });

  it('ends a lost delivery whose retry window has passed, sending nothing', async () => {
    const { message } = await lostMessage(clock.now() - DAY - 60_000);
    expect(await deliveries.sweep(10 * 60_000)).toBeGreaterThanOrEqual(1);
    expect(await store.getMessage(message.accountId, message.id)).toMatchObject({
      status: 'failed',
      nextAttemptAt: null,
    });
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === message.id)).toEqual([]);
  });

  it('ends a delivery whose secret was sealed under another server secret, without an attempt', async () => {
    const { endpoint, message } = await lostMessage(clock.now() - 60 * 60_000);
    const other = deriveSecrets('o'.repeat(40)).seal(newWebhookSecret(), sealContext(endpoint.id));
    await store.setEndpointSecrets(endpoint.accountId, endpoint.id, {
      secretSealed: other,
      previousSealed: null,
      previousUntil: null,
    });
    await deliveries.sweep(10 * 60_000);
    expect(await statusOf(message)).toMatchObject({ status: 'failed', attempts: 0 });
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === message.id)).toEqual([]);
  });
});
