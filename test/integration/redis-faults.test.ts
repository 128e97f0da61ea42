import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { deleteRedisPrefixes, redisTestUrl, uniqueRedisPrefix } from '../helpers/services.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { until } from '../helpers/wait.js';

// Issue 6 §3 on the whole request path: with REDIS_URL a request touches Redis up to three
// times (rate limit, cache read, cache write). When Redis stops or hangs, the first request
// pays one 50 ms time-out at most, later ones nothing, and the node comes back by itself.
const redisUrl = await redisTestUrl();
const EXTRA_MS = 100;

let t: TestApp;
let proxy: TcpProxy;
beforeAll(async () => {
  if (!redisUrl) return;
  const target = new URL(redisUrl);
  proxy = await startTcpProxy(target.hostname, Number(target.port || 6379));
  t = await startTestApp({
    redisUrl: proxy.url('redis', target.pathname),
    redisPrefix: uniqueRedisPrefix(),
    redisTimeoutMs: 50,
  });
});
afterAll(async () => {
  await t?.close();
  await proxy?.close();
  if (redisUrl) await deleteRedisPrefixes(redisUrl);
});

async function timedCard(title: string) {
  const start = performance.now();
  const res = await t.inject({
    method: 'GET',
    url: `/render/template?${new URLSearchParams({ template: 'blog', title })}`,
  });
  return { res, ms: performance.now() - start };
}

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

describe.skipIf(!redisUrl)('a node whose Redis stops or hangs', () => {
  it('uses Redis while it answers: the card rendered here is in the shared tier', async () => {
    expect((await timedCard('Shared')).res.statusCode).toBe(200);
    await until(() => (t.modules.scale?.redisCache?.health().writes ?? 0) > 0, 2000);
    expect(t.modules.scale?.redis.health()).toMatchObject({ state: 'up', subscriber: 'ready' });
  });

  for (const fault of ['hung (connection open, no answer)', 'stopped (connections cut, port closed)']) {
    it(`Redis ${fault}: every request answers with at most 100 ms extra, and the node recovers`, async () => {
      const cached: number[] = [];
      for (let i = 0; i < 7; i++) cached.push((await timedCard('Shared')).ms);
      const baseline = median(cached);

      if (fault.startsWith('hung')) proxy.pause();
      else await proxy.stop();
      try {
        const first = await timedCard('Shared');
        expect(first.res.statusCode).toBe(200);
        expect(first.res.headers['x-cache']).toBe('HIT'); // from this node's memory tier
        expect(first.ms - baseline).toBeLessThan(EXTRA_MS);
        const fresh = await timedCard(`Never rendered (${fault})`);
        expect(fresh.res.statusCode).toBe(200);
        expect(fresh.res.headers['x-cache']).toBe('MISS');
        // A render is ~10 ms; Redis adds nothing once the breaker is open.
        const timing = String(fresh.res.headers['server-timing']);
        expect(Number(/cache;dur=([\d.]+)/.exec(timing)?.[1])).toBeLessThan(5);
        const later: number[] = [];
        for (let i = 0; i < 5; i++) later.push((await timedCard('Shared')).ms);
        expect(Math.max(...later) - baseline).toBeLessThan(EXTRA_MS);
        expect(t.modules.scale?.redis.breaker.open).toBe(true);
        // Limits go on per process meanwhile, with their headers.
        expect(first.res.headers['x-ratelimit-limit']).toBe('600');
      } finally {
        if (fault.startsWith('hung')) proxy.resume();
        else await proxy.start();
      }
      await until(() => t.modules.scale?.redis.breaker.open === false, 5000);
      const back = await timedCard('Shared');
      expect(back.res.statusCode).toBe(200);
      const warnings = t.logs.filter((l) => String(l.msg).startsWith('Redis is unavailable'));
      expect(warnings.length).toBe(fault.startsWith('hung') ? 1 : 2); // once per outage
    });
  }
});
