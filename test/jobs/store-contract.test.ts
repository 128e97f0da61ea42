import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobStore } from '../../src/jobs/store/kysely-jobs.js';
import type { ItemResult, JobRecord, JobStore, NewItem } from '../../src/jobs/store/types.js';
import type { Store } from '../../src/storage/store.js';
import { storeTargets } from '../helpers/store-targets.js';

const targets = await storeTargets('jobstore');

let n = 0;
const job = (accountId: string, over: Partial<JobRecord> = {}): JobRecord => ({
  id: `job_${process.pid}_${++n}`,
  accountId,
  status: 'queued',
  total: 3,
  webhook: null,
  metadata: null,
  idempotencyKey: null,
  enqueued: false,
  bytes: 0,
  createdAt: 1_000 + n,
  startedAt: null,
  completedAt: null,
  expiresAt: 10_000_000,
  ...over,
});
const items = (count: number): NewItem[] =>
  Array.from({ length: count }, (_, index) => ({ index, kind: 'card', request: `{"i":${index}}` }));
const result = (bytes: number): ItemResult => ({
  file: `x/${bytes}.png`,
  contentType: 'image/png',
  bytes,
  etag: `e${bytes}`,
  width: 1200,
  height: 630,
});

describe.each(targets)('job store on $name', (target) => {
  let store: Store;
  let jobs: JobStore;
  const acct = `acc_jobs_${process.pid}`;
  const other = `acc_jobs_other_${process.pid}`;
  beforeAll(async () => {
    store = await target.open();
    jobs = createJobStore(store.db);
    for (const id of [acct, other]) {
      await store.createAccount({ id, name: id, email: `${id}@example.com`, plan: 'pro', createdAt: 1 });
    }
  });
  afterAll(async () => {
    await store?.close();
    await target.cleanup();
  });

  it('stores a job with its items, in batches past one statement, and shows it to its account only', async () => {
    const j = job(acct, { total: 1_201, metadata: { batch: 'spring', n: 1 } });
    expect(await jobs.createJob(j, items(1_201), 0)).toEqual({ created: true, job: j });
    expect(await jobs.getJob(j.id, acct)).toEqual(j);
    expect(await jobs.getJob(j.id, other)).toBeUndefined();
    expect((await jobs.counts(j.id)).queued).toBe(1_201);
    expect(await jobs.waitingOf(acct)).toBe(1_201);
    expect(await jobs.waitingOf(other)).toBe(0);
    const page = await jobs.listItems(j.id, { after: 1_198, limit: 10 });
    expect(page.map((i) => i.index)).toEqual([1_199, 1_200]);
    expect(page[0]).toMatchObject({ kind: 'card', request: '{"i":1199}', status: 'queued', result: null });
    await jobs.deleteJob(j.id);
    expect(await jobs.getJob(j.id)).toBeUndefined();
    expect(await jobs.waitingOf(acct)).toBe(0);
  });

  it('answers the same job for an idempotency key within the window, and frees an older key', async () => {
    const first = job(acct, { idempotencyKey: 'k1', createdAt: 5_000 });
    await jobs.createJob(first, items(1), 0);
    const again = job(acct, { idempotencyKey: 'k1', createdAt: 6_000 });
    const answered = await jobs.createJob(again, items(1), 4_000);
    expect(answered).toEqual({ created: false, job: first });
    expect(await jobs.getJob(again.id)).toBeUndefined();
    // The other account's use of the same key is its own.
    const theirs = job(other, { idempotencyKey: 'k1' });
    expect((await jobs.createJob(theirs, items(1), 0)).created).toBe(true);
    // After the window the key makes a new job; the old one keeps no key.
    const later = job(acct, { idempotencyKey: 'k1', createdAt: 99_000 });
    expect((await jobs.createJob(later, items(1), 90_000)).created).toBe(true);
    expect((await jobs.getJob(first.id))?.idempotencyKey).toBeNull();
    expect(await jobs.findByIdempotencyKey(acct, 'k1', 90_000)).toEqual(later);
  });

  it('runs an item once: a second claim after the end changes nothing, a second result is not stored', async () => {
    const j = job(acct, { total: 2, enqueued: true });
    await jobs.createJob(j, items(2), 0);
    expect(await jobs.startJob(j.id, 50)).toBe(true);
    expect(await jobs.startJob(j.id, 60)).toBe(false);
    expect((await jobs.claimItem(j.id, 0, 100))?.attempts).toBe(1);
    // Its node died: the item is taken again while running.
    expect((await jobs.claimItem(j.id, 0, 200))?.attempts).toBe(2);
    expect(await jobs.finishItem(j.id, 0, { status: 'succeeded', result: result(10) }, 300)).toBe(true);
    expect(await jobs.finishItem(j.id, 0, { status: 'succeeded', result: result(99) }, 301)).toBe(false);
    expect(await jobs.claimItem(j.id, 0, 400)).toBeUndefined();
    expect((await jobs.getItem(j.id, 0))?.result).toEqual(result(10));
    expect((await jobs.getJob(j.id))?.bytes).toBe(10);
    expect(await jobs.finishJobIfDone(j.id, 500)).toBeUndefined();
    await jobs.claimItem(j.id, 1, 600);
    await jobs.finishItem(j.id, 1, { status: 'failed', error: 'title is required' }, 700);
    const done = await jobs.finishJobIfDone(j.id, 800);
    expect(done).toMatchObject({ status: 'completed', startedAt: 50, completedAt: 800 });
    expect(await jobs.finishJobIfDone(j.id, 900)).toBeUndefined();
    expect(await jobs.counts(j.id)).toEqual({ queued: 0, running: 0, succeeded: 1, failed: 1, canceled: 0 });
    expect((await jobs.listItems(j.id, { status: 'failed', limit: 10 }))[0]?.error).toBe('title is required');
    expect(await jobs.bytesOf(acct)).toBeGreaterThanOrEqual(10);
  });

  it('ends a job whose every item failed as failed; a job still being queued is not ended', async () => {
    const j = job(acct, { total: 1 });
    await jobs.createJob(j, items(1), 0);
    await jobs.claimItem(j.id, 0, 1);
    await jobs.finishItem(j.id, 0, { status: 'failed', error: 'x' }, 2);
    expect(await jobs.finishJobIfDone(j.id, 3)).toBeUndefined();
    expect((await jobs.unenqueued(Number.MAX_SAFE_INTEGER)).map((x) => x.id)).toContain(j.id);
    await jobs.markEnqueued(j.id);
    expect((await jobs.unenqueued(Number.MAX_SAFE_INTEGER)).map((x) => x.id)).not.toContain(j.id);
    expect((await jobs.finishJobIfDone(j.id, 4))?.status).toBe('failed');
  });

  it('ends the job when two nodes settle its last two items at once, also when both failed', async () => {
    // Found in CI: on PostgreSQL each transaction's end check saw the other's item still running,
    // so neither ended the job, which stayed "running" for ever with every item settled. A
    // succeeded item locked the job's row (its byte count) and so serialized the two; a failed
    // one did not.
    for (let round = 0; round < 20; round++) {
      for (const outcomes of [
        ['failed', 'failed'],
        ['succeeded', 'failed'],
      ] as const) {
        const j = job(acct, { total: 2, enqueued: true });
        await jobs.createJob(j, items(2), 0);
        await jobs.claimItem(j.id, 0, 1);
        await jobs.claimItem(j.id, 1, 1);
        const settle = (index: number, status: 'failed' | 'succeeded') =>
          jobs.settleItem(
            j.id,
            index,
            status === 'failed' ? { status, error: 'x' } : { status, result: result(5) },
            2,
            { itemEvent: false },
          );
        const [a, b] = await Promise.all([settle(0, outcomes[0]), settle(1, outcomes[1])]);
        expect([a.stored, b.stored]).toEqual([true, true]);
        // Exactly one of the two ended it.
        expect([a.ended, b.ended].filter(Boolean)).toHaveLength(1);
        expect((await jobs.getJob(j.id))?.status, `round ${round}, ${outcomes}`).toBe(
          outcomes[0] === 'succeeded' ? 'completed' : 'failed',
        );
      }
    }
  });

  it('cancels for its account only: queued items never run, a running one may finish', async () => {
    const j = job(acct, { total: 3, enqueued: true });
    await jobs.createJob(j, items(3), 0);
    await jobs.claimItem(j.id, 0, 1);
    expect(await jobs.cancelJob(j.id, other, 2)).toBeUndefined();
    expect(await jobs.cancelJob(j.id, acct, 3)).toMatchObject({ status: 'canceled', completedAt: 3 });
    expect(await jobs.cancelJob(j.id, acct, 4)).toBeUndefined();
    expect(await jobs.claimItem(j.id, 1, 5)).toBeUndefined();
    expect(await jobs.finishItem(j.id, 0, { status: 'succeeded', result: result(5) }, 6)).toBe(true);
    expect(await jobs.finishJobIfDone(j.id, 7)).toBeUndefined();
    expect(await jobs.counts(j.id)).toEqual({ queued: 0, running: 0, succeeded: 1, failed: 0, canceled: 2 });
  });

  it('fails items running since before a time (their runs were lost), for their jobs to end', async () => {
    const j = job(acct, { total: 2, enqueued: true });
    await jobs.createJob(j, items(2), 0);
    await jobs.claimItem(j.id, 0, 100);
    await jobs.claimItem(j.id, 1, 5_000);
    expect(await jobs.failStale(1_000, 'lost', 6_000)).toEqual([j.id]);
    expect((await jobs.getItem(j.id, 0))?.status).toBe('failed');
    expect((await jobs.getItem(j.id, 0))?.error).toBe('lost');
    expect((await jobs.getItem(j.id, 1))?.status).toBe('running');
    expect(await jobs.failStale(1_000, 'lost', 7_000)).toEqual([]);
  });

  it('lists an account newest first with a cursor, and finds jobs past their retention', async () => {
    const mine = [
      job(other, { createdAt: 70_000 }),
      job(other, { createdAt: 70_000 }),
      job(other, { createdAt: 80_000, expiresAt: 5 }),
    ];
    for (const j of mine) await jobs.createJob(j, items(1), 0);
    const all = await jobs.listJobs(other, { limit: 100 });
    // The same millisecond: the id decides, the same way on every page.
    const [a, b] = [mine[0]!.id, mine[1]!.id].sort().reverse();
    expect(all.slice(0, 3).map((j) => j.id)).toEqual([mine[2]!.id, a, b]);
    const next = await jobs.listJobs(other, { after: { createdAt: 70_000, id: a! }, limit: 1 });
    expect(next.map((j) => j.id)).toEqual([b]);
    expect((await jobs.expired(10, 10)).map((j) => j.id)).toEqual([mine[2]!.id]);
  });

  describe('the outbox', () => {
    /** Empties the outbox of what earlier tests' job ends wrote. */
    const drain = async () => {
      for (const e of await jobs.claimEvents(
        'drain',
        Number.MAX_SAFE_INTEGER,
        Number.MAX_SAFE_INTEGER,
        10_000,
      )) {
        await jobs.deleteEvent(e.id);
      }
    };

    it("writes an item's event only when asked, and the job's with its last item, in that transaction", async () => {
      await drain();
      const j = job(acct, { total: 2, enqueued: true });
      await jobs.createJob(j, items(2), 0);
      await jobs.claimItem(j.id, 0, 10);
      await jobs.claimItem(j.id, 1, 10);
      const ok = { status: 'succeeded', result: result(7) } as const;
      expect(await jobs.settleItem(j.id, 0, ok, 20, { itemEvent: false })).toEqual({
        stored: true,
        ended: false,
      });
      expect(
        await jobs.settleItem(j.id, 1, { status: 'failed', error: 'x' }, 30, { itemEvent: true }),
      ).toEqual({
        stored: true,
        ended: true,
      });
      // A second run's outcome writes nothing: no result, no event.
      expect(await jobs.settleItem(j.id, 1, ok, 40, { itemEvent: true })).toEqual({
        stored: false,
        ended: false,
      });
      expect((await jobs.getJob(j.id))?.status).toBe('completed');
      const events = await jobs.claimEvents('node-a', 100, 5_100, 10);
      expect(
        events.map(({ jobId, index, type, createdAt, accountId, failures }) => ({
          jobId,
          index,
          type,
          createdAt,
          accountId,
          failures,
        })),
      ).toEqual([
        { jobId: j.id, index: 1, type: 'render.failed', createdAt: 30, accountId: acct, failures: 0 },
        { jobId: j.id, index: null, type: 'job.completed', createdAt: 30, accountId: acct, failures: 0 },
      ]);
      expect(new Set(events.map((e) => e.id)).size).toBe(2);
      // Leased: another node gets none until the lease ends, then the same rows, same ids.
      expect(await jobs.claimEvents('node-b', 5_000, 10_000, 10)).toEqual([]);
      const again = await jobs.claimEvents('node-b', 5_200, 10_200, 10);
      expect(again.map((e) => e.id)).toEqual(events.map((e) => e.id));
      await jobs.retryEvent(again[0]!.id, 20_000);
      await jobs.deleteEvent(again[1]!.id);
      expect(await jobs.claimEvents('node-c', 19_999, 30_000, 10)).toEqual([]);
      expect(await jobs.claimEvents('node-c', 20_001, 30_000, 10)).toMatchObject([
        { id: again[0]!.id, failures: 1 },
      ]);
      await drain();
    });

    it('writes job.canceled with the cancel and job.failed with failStale; deleting a job drops its events', async () => {
      await drain();
      const c = job(acct, { total: 1, enqueued: true });
      await jobs.createJob(c, items(1), 0);
      await jobs.cancelJob(c.id, acct, 5);
      const f = job(acct, { total: 1, enqueued: true });
      await jobs.createJob(f, items(1), 0);
      await jobs.claimItem(f.id, 0, 1);
      await jobs.failStale(2, 'lost', 3);
      expect((await jobs.finishJobIfDone(f.id, 4))?.status).toBe('failed');
      expect((await jobs.claimEvents('n', 10, 20, 10)).map((e) => [e.jobId, e.type])).toEqual([
        [f.id, 'job.failed'],
        [c.id, 'job.canceled'],
      ]);
      await jobs.deleteJob(c.id);
      expect((await jobs.claimEvents('n', 30, 40, 10)).map((e) => e.jobId)).toEqual([f.id]);
      await drain();
    });

    it('two nodes draining at once lease each event to one of them', async () => {
      await drain();
      const j = job(acct, { total: 300, enqueued: true });
      await jobs.createJob(j, items(300), 0);
      for (let i = 0; i < 300; i++) {
        await jobs.claimItem(j.id, i, 1);
        await jobs.settleItem(j.id, i, { status: 'failed', error: 'x' }, 2, { itemEvent: true });
      }
      // A second node: its own store (connections) on the same database.
      const second = await target.open();
      try {
        const jobs2 = createJobStore(second.db);
        const got: string[][] = [[], []];
        await Promise.all(
          [jobs, jobs2].map(async (s, n) => {
            for (;;) {
              const batch = await s.claimEvents(`node-${n}`, 100, 10_000, 7);
              if (batch.length === 0) return;
              got[n]!.push(...batch.map((e) => e.id));
            }
          }),
        );
        const all = [...got[0]!, ...got[1]!];
        expect(all).toHaveLength(301);
        expect(new Set(all).size).toBe(301);
      } finally {
        await second.close();
      }
      await drain();
    });
  });
});
