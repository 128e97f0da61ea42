import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type CacheEntry, createTieredCache } from '../../src/cache/cache.js';
import { createMemoryCache } from '../../src/cache/memory.js';
import { createRedisCache } from '../../src/cache/redis.js';
import { createSharedFlight, type Produced } from '../../src/cache/shared-flight.js';
import { AppError } from '../../src/errors.js';
import { openRedis } from '../../src/redis/open.js';
import { closedPort } from '../helpers/servers.js';
import { deleteRedisPrefixes, redisTestUrl, uniqueRedisPrefix } from '../helpers/services.js';

// Two "nodes" in one process, each with its own Redis connections, memory tier and flight,
// sharing the machine's real Redis under a prefix no other run uses.
const redisUrl = await redisTestUrl();
const log = pino({ level: 'silent' });
const LOCK_TTL_MS = 600;

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});
afterAll(async () => {
  if (redisUrl) await deleteRedisPrefixes(redisUrl);
});

async function node(prefix: string, url = redisUrl!) {
  const redis = await openRedis({ url, prefix, timeoutMs: 50, log });
  const cache = createTieredCache([
    { name: 'memory', cache: createMemoryCache({ maxBytes: 1 << 20 }) },
    { name: 'redis', cache: createRedisCache({ redis, maxEntryBytes: 1 << 20, ttlSeconds: 600, log }) },
  ]);
  const flight = createSharedFlight({ redis, cache, log, lockTtlMs: LOCK_TTL_MS, pollMs: 50 });
  closers.push(async () => {
    await flight.close();
    await cache.close();
    await redis.close();
  });
  return { redis, cache, flight };
}

/** A capture that takes `ms` and counts itself. */
function producer(ms: number, body = 'png') {
  let calls = 0;
  const produce = async (): Promise<Produced<string>> => {
    calls++;
    await new Promise((r) => setTimeout(r, ms));
    const entry: CacheEntry = {
      body: Buffer.from(body),
      etag: `etag-${body}`,
      storedAt: Date.now(),
      expiresAt: Date.now() + 60_000,
    };
    return { entry, value: 'fresh', cacheable: true };
  };
  return { produce, calls: () => calls };
}

describe.skipIf(!redisUrl)('single-flight across nodes (real Redis)', () => {
  it('two nodes asked for the same key at once produce it once; the other reads the owner’s entry', async () => {
    const prefix = uniqueRedisPrefix();
    const [a, b] = [await node(prefix), await node(prefix)];
    const p = producer(300);
    const deadline = Date.now() + 10_000;
    const [ra, rb] = await Promise.all([
      a.flight.run('same', { deadline, produce: p.produce }),
      b.flight.run('same', { deadline, produce: p.produce }),
    ]);
    expect(p.calls()).toBe(1);
    expect([ra.role, rb.role].sort()).toEqual(['owner', 'waiter']);
    expect(ra.entry.body.toString()).toBe('png');
    expect(rb.entry.etag).toBe(ra.entry.etag);
    const waiter = ra.role === 'waiter' ? ra : rb;
    // Woken by the announcement, not by the lock's expiry.
    expect(waiter.waitMs).toBeLessThan(300 + LOCK_TTL_MS);
    expect(a.flight.health().owned + b.flight.health().owned).toBe(1);
  });

  it('does not take a cached entry the caller will not accept (fresh, ttl): it captures and replaces it', async () => {
    const prefix = uniqueRedisPrefix();
    const [a, b] = [await node(prefix), await node(prefix)];
    const deadline = Date.now() + 10_000;
    const old = producer(0, 'old');
    await a.flight.run('aged', { deadline, produce: old.produce });
    // Accepted by default: another node's cached entry stands in for a capture.
    const again = producer(0, 'new');
    expect((await b.flight.run('aged', { deadline, produce: again.produce })).entry.etag).toBe('etag-old');
    expect(again.calls()).toBe(0);
    // A clock tick after the old capture: in the same millisecond, `accept` would take it.
    await new Promise((r) => setTimeout(r, 2));
    const started = Date.now();
    const fresh = await b.flight.run('aged', {
      deadline,
      produce: again.produce,
      accept: (entry) => entry.storedAt >= started,
    });
    expect([fresh.role, fresh.entry.etag, again.calls()]).toEqual(['owner', 'etag-new', 1]);
    // The shared tier holds the new capture: a node without a copy of its own reads it.
    const c = await node(prefix);
    expect((await c.cache.get('aged'))?.etag).toBe('etag-new');
  });

  it('a node that took the lock and died is replaced once its lock expires', async () => {
    const prefix = uniqueRedisPrefix();
    const b = await node(prefix);
    // What a dead owner leaves: a lock with a token nobody renews.
    await b.redis.client.set(`${prefix}lock:orphan`, 'dead-owner', 'PX', LOCK_TTL_MS);
    const p = producer(10);
    const started = Date.now();
    const r = await b.flight.run('orphan', { deadline: Date.now() + 10_000, produce: p.produce });
    expect(r.role).toBe('owner');
    expect(p.calls()).toBe(1);
    expect(Date.now() - started).toBeLessThan(LOCK_TTL_MS + 1000);
    expect(b.flight.health().takenOver).toBe(1);
  });

  it('the owner keeps its lock while a capture outlasts the lock time', async () => {
    const prefix = uniqueRedisPrefix();
    const [a, b] = [await node(prefix), await node(prefix)];
    const slow = producer(LOCK_TTL_MS * 3);
    const deadline = Date.now() + 10_000;
    const first = a.flight.run('long', { deadline, produce: slow.produce });
    await new Promise((r) => setTimeout(r, 50));
    const second = b.flight.run('long', { deadline, produce: slow.produce });
    const [ra, rb] = await Promise.all([first, second]);
    expect(slow.calls()).toBe(1);
    expect(ra.role).toBe('owner');
    expect(rb.role).toBe('waiter');
  });

  it('a failure the owner saw is the waiters’ answer too (no second attempt at a page that fails)', async () => {
    const prefix = uniqueRedisPrefix();
    const [a, b] = [await node(prefix), await node(prefix)];
    let calls = 0;
    const failing = async (): Promise<Produced<string>> => {
      calls++;
      await new Promise((r) => setTimeout(r, 200));
      throw new AppError('gateway_timeout', 'The page did not finish loading in time', { retryAfter: 3 });
    };
    const deadline = Date.now() + 10_000;
    const results = await Promise.allSettled([
      a.flight.run('fails', { deadline, produce: failing }),
      b.flight.run('fails', { deadline, produce: failing }),
    ]);
    expect(calls).toBe(1);
    for (const r of results) {
      expect(r.status).toBe('rejected');
      const err = (r as PromiseRejectedResult).reason as AppError;
      expect(err.code).toBe('gateway_timeout');
      expect(err.message).toBe('The page did not finish loading in time');
    }
  });

  it('without Redis a node captures on its own at once (no lock, no wait)', async () => {
    const down = await node(uniqueRedisPrefix(), `redis://127.0.0.1:${await closedPort()}`);
    const p = producer(10);
    const started = performance.now();
    const r = await down.flight.run('alone', { deadline: Date.now() + 10_000, produce: p.produce });
    expect(r.role).toBe('solo');
    expect(performance.now() - started).toBeLessThan(100 + 10);
  });
});
