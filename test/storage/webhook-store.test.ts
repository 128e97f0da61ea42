import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account, Store } from '../../src/storage/store.js';
import type { AttemptRecord, EndpointRecord, MessageRecord } from '../../src/webhooks/store.js';
import { storeTargets } from '../helpers/store-targets.js';

const targets = await storeTargets('whstore');

let n = 0;
const T0 = 1_800_000_000_000;
const account = (): Account => ({
  id: `acc_${String(++n).padStart(16, '0')}`,
  name: 'Acme',
  email: `hooks${n}-${Math.random()}@acme.test`,
  plan: 'pro',
  createdAt: T0 + n,
});
const endpoint = (accountId: string, over: Partial<EndpointRecord> = {}): EndpointRecord => ({
  id: `ep_${String(++n).padStart(16, '0')}`,
  accountId,
  url: 'https://hooks.example.com/cardshot?x=1',
  events: ['job.completed', 'render.failed'],
  secretSealed: 'v1.sealed',
  previousSealed: null,
  previousUntil: null,
  disabledAt: null,
  disabledReason: null,
  createdAt: T0 + n,
  ...over,
});
const message = (e: EndpointRecord, over: Partial<MessageRecord> = {}): MessageRecord => ({
  id: `msg_${String(++n).padStart(20, '0')}`,
  endpointId: e.id,
  accountId: e.accountId,
  type: 'job.completed',
  body: '{"type":"job.completed","timestamp":"2027-01-15T08:00:00.000Z","data":{"id":"job_1"}}',
  createdAt: T0 + n,
  status: 'pending',
  attempts: 0,
  seriesStartedAt: T0 + n,
  nextAttemptAt: T0 + n,
  ...over,
});
const attempt = (m: MessageRecord, no: number, over: Partial<AttemptRecord> = {}): AttemptRecord => ({
  id: `atmpt_${String(++n).padStart(20, '0')}`,
  messageId: m.id,
  endpointId: m.endpointId,
  accountId: m.accountId,
  attempt: no,
  at: T0 + n,
  durationMs: 15_000,
  status: null,
  response: 'é'.repeat(10),
  error: 'No answer within 15 s',
  ...over,
});

describe.each(targets)('webhook store on $name', (target) => {
  let store: Store;
  beforeAll(async () => {
    store = await target.open();
  });
  afterAll(async () => {
    await store?.close();
    await target.cleanup();
  });

  it("keeps endpoints per account: another account's id reads as missing, and cannot delete or rotate it", async () => {
    const a = account();
    const b = account();
    await store.createAccount(a);
    await store.createAccount(b);
    const e1 = endpoint(a.id);
    const e2 = endpoint(a.id, { events: [] });
    await store.insertEndpoint(e1);
    await store.insertEndpoint(e2);
    expect(await store.listEndpoints(a.id)).toEqual([e1, e2]);
    expect(await store.listEndpoints(b.id)).toEqual([]);
    expect(await store.countEndpoints(a.id)).toBe(2);
    expect(await store.getEndpoint(a.id, e1.id)).toEqual(e1);
    expect(await store.getEndpoint(b.id, e1.id)).toBeUndefined();
    expect(await store.deleteEndpoint(b.id, e1.id)).toBe(false);
    const rotated = { secretSealed: 'v1.new', previousSealed: 'v1.sealed', previousUntil: T0 + 86_400_000 };
    expect(await store.setEndpointSecrets(b.id, e1.id, rotated)).toBe(false);
    expect(await store.getEndpoint(a.id, e1.id)).toEqual(e1);
    expect(await store.setEndpointSecrets(a.id, e1.id, rotated)).toBe(true);
    expect(await store.getEndpoint(a.id, e1.id)).toEqual({ ...e1, ...rotated });
    expect(await store.deleteEndpoint(a.id, e2.id)).toBe(true);
    expect(await store.countEndpoints(a.id)).toBe(1);
  });

  it('disables an endpoint once (the first reason and time stay)', async () => {
    const a = account();
    await store.createAccount(a);
    const e = endpoint(a.id);
    await store.insertEndpoint(e);
    await store.disableEndpoint(e.id, T0 + 5, 'The receiver answered 410 Gone');
    await store.disableEndpoint(e.id, T0 + 9, 'later');
    expect(await store.getEndpoint(a.id, e.id)).toMatchObject({
      disabledAt: T0 + 5,
      disabledReason: 'The receiver answered 410 Gone',
    });
  });

  it('stores messages and attempts, counts pending ones per account, pages newest first', async () => {
    const a = account();
    const b = account();
    await store.createAccount(a);
    await store.createAccount(b);
    const e = endpoint(a.id);
    const other = endpoint(b.id);
    await store.insertEndpoint(e);
    await store.insertEndpoint(other);
    const m1 = message(e, { createdAt: T0 });
    const m2 = message(e, { createdAt: T0 });
    const m3 = message(e, { createdAt: T0 + 1 });
    for (const m of [m1, m2, m3, message(other)]) await store.insertMessage(m);
    expect(await store.getMessage(a.id, m1.id)).toEqual(m1);
    expect(await store.getMessage(b.id, m1.id)).toBeUndefined();
    expect(await store.countPendingMessages(a.id)).toBe(3);
    await store.updateMessage(m1.id, { status: 'succeeded', attempts: 2, nextAttemptAt: null });
    await store.updateMessage(m2.id, {
      status: 'pending',
      attempts: 1,
      nextAttemptAt: T0 + 99,
      seriesStartedAt: T0 + 50,
    });
    expect(await store.countPendingMessages(a.id)).toBe(2);
    expect(await store.getMessage(a.id, m1.id)).toEqual({
      ...m1,
      status: 'succeeded',
      attempts: 2,
      nextAttemptAt: null,
    });
    expect(await store.getMessage(a.id, m2.id)).toMatchObject({
      attempts: 1,
      nextAttemptAt: T0 + 99,
      seriesStartedAt: T0 + 50,
    });

    // Newest first; ties on the time broken by id, so a cursor never skips or repeats one.
    const first = await store.listMessages(e.id, { limit: 2 });
    expect(first.map((m) => m.id)).toEqual([m3.id, m2.id]);
    const last = first.at(-1)!;
    const next = await store.listMessages(e.id, {
      limit: 2,
      before: { createdAt: last.createdAt, id: last.id },
    });
    expect(next.map((m) => m.id)).toEqual([m1.id]);

    const a1 = attempt(m1, 1, { status: 500, response: 'oops' });
    const a2 = attempt(m1, 2, { status: 200, error: null });
    await store.insertAttempt(a2);
    await store.insertAttempt(a1);
    await store.insertAttempt(attempt(m2, 1));
    expect(await store.listAttempts([m1.id])).toEqual([a1, a2]);
    expect(await store.listAttempts([])).toEqual([]);
  });

  it('drops messages and attempts with their endpoint, and endpoints with their account', async () => {
    const a = account();
    await store.createAccount(a);
    const e = endpoint(a.id);
    await store.insertEndpoint(e);
    const m = message(e);
    await store.insertMessage(m);
    await store.insertAttempt(attempt(m, 1));
    expect(await store.deleteEndpoint(a.id, e.id)).toBe(true);
    expect(await store.getMessage(a.id, m.id)).toBeUndefined();
    expect(await store.listAttempts([m.id])).toEqual([]);

    const e2 = endpoint(a.id);
    await store.insertEndpoint(e2);
    const m2 = message(e2);
    await store.insertMessage(m2);
    await target.deleteAccount(a.id);
    expect(await store.listEndpoints(a.id)).toEqual([]);
    expect(await store.getMessage(a.id, m2.id)).toBeUndefined();
  });

  it('purges messages older than the retention, with their attempts', async () => {
    const a = account();
    await store.createAccount(a);
    const e = endpoint(a.id);
    await store.insertEndpoint(e);
    const old = message(e, { createdAt: 1000 });
    const fresh = message(e, { createdAt: 3000 });
    await store.insertMessage(old);
    await store.insertMessage(fresh);
    await store.insertAttempt(attempt(old, 1));
    expect(await store.purgeMessages(2000)).toBeGreaterThanOrEqual(1);
    expect(await store.getMessage(a.id, old.id)).toBeUndefined();
    expect(await store.listAttempts([old.id])).toEqual([]);
    expect(await store.getMessage(a.id, fresh.id)).toEqual(fresh);
  });

  it('refuses an endpoint for an account that does not exist', async () => {
    await expect(store.insertEndpoint(endpoint('acc_missing000000000'))).rejects.toThrow();
  });
});
