import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CacheEntry } from '../../src/cache/cache.js';
import { createRedisCache } from '../../src/cache/redis.js';
import { openRedis, type RedisModule } from '../../src/redis/open.js';
import { capturedLogger } from '../helpers/logs.js';
import { type PrivateRedis, redisServerAvailable, startPrivateRedis } from '../helpers/redis-server.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { timed, until } from '../helpers/wait.js';

// The Redis tier's own promises: bounded entries, a TTL on every key, and a Redis that is
// stopped or hung costs a request at most one 50 ms time-out, is logged once, and comes back
// by itself. A private redis-server (stopped and started at will) behind a TCP proxy (paused).
const TIMEOUT_MS = 50;
const BUDGET_MS = 100;

let server: PrivateRedis;
let proxy: TcpProxy;
beforeAll(async () => {
  server = await startPrivateRedis();
  proxy = await startTcpProxy('127.0.0.1', server.port);
});
afterAll(async () => {
  await proxy?.close();
  await server?.close();
});

const opened: RedisModule[] = [];
afterEach(async () => {
  for (const r of opened.splice(0)) await r.close();
  proxy.resume();
  if (proxyStopped) await proxy.start();
  proxyStopped = false;
});
let proxyStopped = false;

async function setup(opts: { maxEntryBytes?: number; ttlSeconds?: number } = {}) {
  const { log, lines } = capturedLogger();
  const redis = await openRedis({ url: proxy.url('redis'), prefix: 'rc:', timeoutMs: TIMEOUT_MS, log });
  opened.push(redis);
  const cache = createRedisCache({
    redis,
    maxEntryBytes: opts.maxEntryBytes ?? 1 << 20,
    ttlSeconds: opts.ttlSeconds ?? 3600,
    log,
  });
  return { cache, redis, lines };
}

const entry = (bytes: number, expiresAt: number | null = null): CacheEntry => ({
  body: Buffer.alloc(bytes, 7),
  etag: `e${bytes}`,
  storedAt: Date.now(),
  expiresAt,
});

describe.skipIf(!redisServerAvailable())('Redis PNG tier', () => {
  it('keeps entries over the size cap out of Redis, and puts a TTL on every key it writes', async () => {
    const { cache } = await setup({ maxEntryBytes: 5000, ttlSeconds: 600 });
    await cache.set('big', entry(6000));
    await cache.set('card', entry(100));
    await cache.set('shot', entry(100, Date.now() + 60_000));
    expect(await cache.get('big')).toBeUndefined();
    expect(cache.health()).toMatchObject({ tooLarge: 1, writes: 2 });
    const cardTtl = await server.admin.pttl('rc:png:card');
    const shotTtl = await server.admin.pttl('rc:png:shot');
    expect(cardTtl).toBeGreaterThan(590_000);
    expect(cardTtl).toBeLessThanOrEqual(600_000);
    expect(shotTtl).toBeGreaterThan(50_000);
    expect(shotTtl).toBeLessThanOrEqual(60_000);
    expect((await cache.get('card'))?.etag).toBe('e100');
  });

  it('warns at start, in one line, when Redis has no maxmemory (PNGs would be bounded by TTL only)', async () => {
    await server.admin.config('SET', 'maxmemory', '0');
    const { cache, lines } = await setup();
    const warnings = () => lines.filter((l) => String(l.msg).includes('no maxmemory'));
    await until(() => warnings().length > 0, 2000);
    // Requests after the start's sample add no line of their own.
    for (let i = 0; i < 5; i++) await cache.set(`w${i}`, entry(10));
    await cache.get('w0');
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]!.level).toBe(40);
  });

  it('Redis stopped: a read is a miss within 100 ms, writes are dropped, logged once, back by itself', async () => {
    const { cache, redis, lines } = await setup();
    await cache.set('kept', entry(300));
    await proxy.stop();
    proxyStopped = true;
    const first = await timed(cache.get('kept'));
    expect(first.value).toBeUndefined();
    expect(first.ms).toBeLessThan(BUDGET_MS);
    for (let i = 0; i < 5; i++) {
      const r = await timed(cache.get('kept'));
      expect(r.ms).toBeLessThan(5); // bypassed: Redis is not even asked
      await cache.set(`during${i}`, entry(10));
    }
    expect(redis.breaker.open).toBe(true);
    expect(lines.filter((l) => String(l.msg).startsWith('Redis is unavailable'))).toHaveLength(1);
    await proxy.start();
    proxyStopped = false;
    await until(() => !redis.breaker.open, 5000);
    expect((await cache.get('kept'))?.etag).toBe('e300');
    expect(lines.some((l) => String(l.msg).startsWith('Redis answers again'))).toBe(true);
  });

  it('Redis hung (connection open, no answer): a read is a miss within 100 ms, then bypassed', async () => {
    const { cache, redis } = await setup();
    await cache.set('held', entry(300));
    proxy.pause();
    const first = await timed(cache.get('held'));
    expect(first.value).toBeUndefined();
    expect(first.ms).toBeLessThan(BUDGET_MS);
    const next = await timed(cache.get('held'));
    expect(next.ms).toBeLessThan(5);
    proxy.resume();
    await until(() => !redis.breaker.open, 5000);
    expect((await cache.get('held'))?.etag).toBe('e300');
  });
});
