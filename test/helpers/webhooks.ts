import { Webhook } from 'standardwebhooks';
import { vi } from 'vitest';
import type { DeliveryView } from '../../src/webhooks/views.js';
import type { TestApp } from './app.js';
import type { Received } from './webhook-receiver.js';

/** A second account in the same app, with its own key (the hostile one). */
export async function secondAccount(
  t: TestApp,
  name = 'Other account',
): Promise<{ accountId: string; key: string }> {
  const account = await t.modules.accounts.accounts.createAccount({
    name,
    email: `other-${Math.random().toString(36).slice(2)}@example.com`,
    plan: 'pro',
  });
  const key = await t.modules.accounts.accounts.createKey({
    accountId: account.id,
    name: 'k',
    environment: 'test',
  });
  return { accountId: account.id, key: key.key };
}

/** POST /webhooks as `key` (the test account's when absent); the parsed answer. */
export async function addEndpoint(
  t: TestApp,
  body: unknown,
  key?: string,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await t.inject({
    method: 'POST',
    url: '/webhooks',
    payload: body as object,
    ...(key ? { headers: { 'x-api-key': key } } : {}),
  });
  return { status: res.statusCode, json: res.json() };
}

/** Polls the delivery log until `deliveryId` is no longer pending (or `done` says so). */
export async function settled(
  t: TestApp,
  endpointId: string,
  deliveryId: string,
  opts: { key?: string; timeoutMs?: number; done?: (d: DeliveryView) => boolean } = {},
): Promise<DeliveryView> {
  const end = Date.now() + (opts.timeoutMs ?? 10_000);
  const done = opts.done ?? ((d) => d.status !== 'pending');
  for (;;) {
    const res = await t.inject({
      method: 'GET',
      url: `/webhooks/${endpointId}/deliveries?limit=100`,
      ...(opts.key ? { headers: { 'x-api-key': opts.key } } : {}),
    });
    const found = (res.json().deliveries as DeliveryView[]).find((d) => d.id === deliveryId);
    if (found && done(found)) return found;
    if (Date.now() > end) throw new Error(`delivery ${deliveryId} not settled: ${JSON.stringify(found)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Verifies a received request with the standardwebhooks library as a receiver would, its clock
 * set to `at` (the library checks the timestamp against Date.now() within 5 minutes).
 */
export function verifyAt(secret: string, got: Received, at = Date.now()): unknown {
  vi.useFakeTimers({ toFake: ['Date'], now: at });
  try {
    return new Webhook(secret).verify(got.body, got.headers as Record<string, string>);
  } finally {
    vi.useRealTimers();
  }
}
