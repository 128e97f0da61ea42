import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createFailoverLimiter } from '../../src/ratelimit/failover.js';
import { createMemoryLimiter } from '../../src/ratelimit/memory.js';
import { createRedisLimiter } from '../../src/ratelimit/redis.js';
import { capturedLogger } from '../helpers/logs.js';
import { closedPort } from '../helpers/servers.js';
import { deleteRedisPrefixes, redisTestUrl, uniqueRedisPrefix } from '../helpers/services.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { timed, until } from '../helpers/wait.js';

// Redis faults made on demand without touching the Redis other test runs share: a closed
// port, and a TCP proxy we control in front of the real Redis (stopped, or paused with the
// connection open and no bytes moving, as a hung server looks).
const redisUrl = await redisTestUrl();
const TIMEOUT_MS = 50;
const BUDGET_MS = 100;

function setup(url: string) {
  const { log, lines } = capturedLogger();
  const primary = createRedisLimiter({ url, prefix: uniqueRedisPrefix(), timeoutMs: TIMEOUT_MS });
  const limiter = createFailoverLimiter({
    primary,
    fallback: createMemoryLimiter(),
    timeoutMs: TIMEOUT_MS,
    log,
  });
  return { limiter, primary, lines };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});
afterAll(async () => {
  if (redisUrl) await deleteRedisPrefixes(redisUrl);
});

describe('rate limiter with Redis unreachable', () => {
  it('answers from the per-process limiter within 100 ms when Redis is a closed port, and logs it once', async () => {
    const { limiter, lines } = setup(`redis://127.0.0.1:${await closedPort()}`);
    cleanups.push(() => limiter.close());
    const first = await timed(limiter.consume('acct:a', 2, 60_000));
    expect(first.ms).toBeLessThan(BUDGET_MS);
    expect(first.value).toMatchObject({ allowed: true, remaining: 1 });
    const rest = [];
    for (let i = 0; i < 3; i++) rest.push(await timed(limiter.consume('acct:a', 2, 60_000)));
    expect(rest.map((r) => r.value.allowed)).toEqual([true, false, false]);
    for (const r of rest) expect(r.ms).toBeLessThan(BUDGET_MS);
    expect(limiter.degraded).toBe(true);
    const warnings = lines.filter((l) => String(l.msg).includes('Redis is unavailable'));
    expect(warnings).toHaveLength(1);
  });
});

describe.skipIf(!redisUrl)('rate limiter failing over and back (real Redis behind a proxy)', () => {
  let proxy: TcpProxy;
  const start = async () => {
    const target = new URL(redisUrl!);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
    const s = setup(proxy.url('redis', target.pathname));
    cleanups.push(async () => {
      await s.limiter.close();
      await proxy.close();
    });
    await s.primary.probe(2000);
    return s;
  };

  it('Redis paused (connection open, no answer): falls back within 100 ms, then returns to Redis', async () => {
    const { limiter, lines } = await start();
    // The first request must be counted by Redis. On a loaded machine an event-loop stall can
    // pass the 50 ms time-out and count it per process instead; then the round starts again
    // with a fresh key once Redis is back, so the premise holds.
    let key = 'acct:p';
    for (let round = 0; ; round++) {
      key = `acct:p${round}`;
      expect((await limiter.consume(key, 100, 60_000)).remaining).toBe(99);
      if (!limiter.degraded || round >= 3) break;
      await until(() => !limiter.degraded, 3000);
    }
    expect(limiter.degraded).toBe(false);
    proxy.pause();
    const during = await timed(limiter.consume(key, 100, 60_000));
    expect(during.ms).toBeLessThan(BUDGET_MS);
    expect(during.value).toMatchObject({ allowed: true, remaining: 99 }); // the fresh per-process log
    const next = await timed(limiter.consume(key, 100, 60_000));
    expect(next.ms).toBeLessThan(TIMEOUT_MS); // known down: it does not wait for the time-out again
    proxy.resume();
    await until(() => !limiter.degraded, 3000);
    // Back on Redis: its log still holds the request counted before the pause.
    expect((await limiter.consume(key, 100, 60_000)).remaining).toBeLessThanOrEqual(98);
    expect(lines.some((l) => String(l.msg).includes('Redis answers again'))).toBe(true);
  });

  it('Redis stopped then started: never waits more than 100 ms, and recovers by itself', async () => {
    const { limiter } = await start();
    await limiter.consume('acct:s', 100, 60_000);
    await proxy.stop();
    for (let i = 0; i < 5; i++) {
      const r = await timed(limiter.consume('acct:s', 100, 60_000));
      expect(r.ms).toBeLessThan(BUDGET_MS);
      expect(r.value.allowed).toBe(true);
    }
    expect(limiter.degraded).toBe(true);
    await proxy.start();
    await until(() => !limiter.degraded, 5000);
    const back = await timed(limiter.consume('acct:s', 100, 60_000));
    expect(back.value.remaining).toBe(98);
    expect(back.ms).toBeLessThan(BUDGET_MS);
  });
});
