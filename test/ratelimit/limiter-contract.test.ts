import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RateLimiter } from '../../src/ratelimit/limiter.js';
import { createMemoryLimiter } from '../../src/ratelimit/memory.js';
import { createRedisLimiter } from '../../src/ratelimit/redis.js';
import { type FakeClock, fakeClock } from '../helpers/clock.js';
import { deleteRedisPrefixes, redisTestUrl, uniqueRedisPrefix } from '../helpers/services.js';

// One suite for every limiter, driven by a fake clock (both implementations take the caller's
// time). Redis runs against the real server with a key prefix no other run uses.
interface Target {
  name: string;
  make(clock: FakeClock): Promise<RateLimiter>;
  runs: number;
}

const redisUrl = await redisTestUrl();
const targets: Target[] = [
  { name: 'memory', make: async (clock) => createMemoryLimiter({ clock }), runs: 200 },
];
if (redisUrl) {
  targets.push({
    name: 'Redis',
    async make(clock) {
      const l = createRedisLimiter({ url: redisUrl, prefix: uniqueRedisPrefix(), timeoutMs: 1000, clock });
      await l.probe(2000);
      return l;
    },
    runs: 40,
  });
}

const MIN = 60_000;

afterAll(async () => {
  if (redisUrl) await deleteRedisPrefixes(redisUrl);
});

describe.each(targets)('$name limiter', (target) => {
  let clock: FakeClock;
  let limiter: RateLimiter;
  let made: RateLimiter[] = [];
  let k = 0;
  const key = () => `acct:${++k}`;
  beforeAll(async () => {
    clock = fakeClock();
    limiter = await target.make(clock);
    made.push(limiter);
  });
  afterAll(async () => {
    await Promise.all(made.map((l) => l.close()));
    made = [];
  });

  it('admits exactly the limit, counting down, then refuses with the time until a slot frees', async () => {
    const id = key();
    const seen = [];
    for (let i = 0; i < 3; i++) {
      seen.push(await limiter.consume(id, 3, MIN));
      clock.advance(1000);
    }
    expect(seen.map((d) => [d.allowed, d.remaining, d.resetMs])).toEqual([
      [true, 2, 60_000],
      [true, 1, 59_000],
      [true, 0, 58_000],
    ]);
    const refused = await limiter.consume(id, 3, MIN);
    expect(refused).toEqual({ allowed: false, limit: 3, remaining: 0, resetMs: 57_000, windowMs: MIN });
  });

  it('has no burst across a window edge: the limit holds in every window of that length', async () => {
    const id = key();
    const start = clock.now();
    // A full budget late in one "minute"…
    clock.set(start + 59_900);
    for (let i = 0; i < 5; i++) expect((await limiter.consume(id, 5, MIN)).allowed).toBe(true);
    // …buys nothing more just after the minute turns (a fixed window would admit 5 more here).
    clock.set(start + 60_100);
    expect((await limiter.consume(id, 5, MIN)).allowed).toBe(false);
    clock.set(start + 119_899);
    expect((await limiter.consume(id, 5, MIN)).allowed).toBe(false);
    // Exactly one window after those requests, their slots come back.
    clock.set(start + 119_900);
    const back = await limiter.consume(id, 5, MIN);
    expect(back.allowed).toBe(true);
    expect(back.remaining).toBe(4);
  });

  it('does not count refused requests', async () => {
    const id = key();
    await limiter.consume(id, 1, 10_000);
    for (let i = 0; i < 5; i++) {
      clock.advance(1000);
      await limiter.consume(id, 1, 10_000);
    }
    clock.advance(5000); // 10 s after the one admitted request
    expect((await limiter.consume(id, 1, 10_000)).allowed).toBe(true);
  });

  it('keeps keys apart', async () => {
    const a = key();
    const b = key();
    expect((await limiter.consume(a, 1, MIN)).allowed).toBe(true);
    expect((await limiter.consume(a, 1, MIN)).allowed).toBe(false);
    expect((await limiter.consume(b, 1, MIN)).allowed).toBe(true);
  });

  it('peeks without counting', async () => {
    const id = key();
    expect(await limiter.peek(id, 2, MIN)).toEqual({
      allowed: true,
      limit: 2,
      remaining: 2,
      resetMs: MIN,
      windowMs: MIN,
    });
    await limiter.consume(id, 2, MIN);
    clock.advance(10_000);
    expect(await limiter.peek(id, 2, MIN)).toMatchObject({ remaining: 1, resetMs: 50_000 });
    expect(await limiter.peek(id, 2, MIN)).toMatchObject({ remaining: 1 });
  });

  it('matches a model of "admit when fewer than N admitted in the last W ms" on random traffic', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 100, max: 5000 }),
        fc.array(fc.integer({ min: 0, max: 1500 }), { minLength: 1, maxLength: 40 }),
        async (limit, windowMs, gaps) => {
          const id = key();
          const admitted: number[] = [];
          for (const gap of gaps) {
            clock.advance(gap);
            const now = clock.now();
            const inWindow = admitted.filter((t) => t > now - windowMs);
            const d = await limiter.consume(id, limit, windowMs);
            expect(d.allowed).toBe(inWindow.length < limit);
            if (d.allowed) admitted.push(now);
            const after = admitted.filter((t) => t > now - windowMs);
            expect(d.remaining).toBe(Math.max(0, limit - after.length));
            expect(d.resetMs).toBe(after.length ? after[0]! + windowMs - now : windowMs);
          }
        },
      ),
      { numRuns: target.runs },
    );
  });

  it('grows with a large limit and shrinks to a smaller one without losing history', async () => {
    const id = key();
    for (let i = 0; i < 1000; i++) await limiter.consume(id, 5000, MIN);
    expect((await limiter.peek(id, 5000, MIN)).remaining).toBe(4000);
    expect((await limiter.consume(id, 10, MIN)).allowed).toBe(false);
  });

  // Issue 16 §5: a clock jump. Windows are durations, so a wall clock stepping back an hour
  // (NTP, `date -s`) must not refuse a full account for that hour, and a step forward only
  // ends windows early (one fresh budget at most).
  describe('when the wall clock jumps', () => {
    let c: FakeClock;
    let l: RateLimiter;
    beforeAll(async () => {
      c = fakeClock();
      l = await target.make(c);
      made.push(l);
    });
    const fill = async (id: string) => {
      for (let i = 0; i < 5; i++) {
        expect((await l.consume(id, 5, MIN)).allowed).toBe(true);
        c.advance(1000);
      }
      expect((await l.consume(id, 5, MIN)).allowed).toBe(false);
    };

    it('back an hour: a full account gets a slot a window later, with a Retry-After of at most a window', async () => {
      const id = key();
      await fill(id);
      c.set(c.now() - 3_600_000);
      const refused = await l.consume(id, 5, MIN);
      expect(refused.allowed).toBe(false);
      expect(refused.resetMs).toBeLessThanOrEqual(MIN);
      c.advance(MIN);
      expect((await l.consume(id, 5, MIN)).allowed).toBe(true);
      // And the window still holds: four more, then refused.
      for (let i = 0; i < 4; i++) expect((await l.consume(id, 5, MIN)).allowed).toBe(true);
      expect((await l.consume(id, 5, MIN)).allowed).toBe(false);
    });

    it('forward an hour: the old window is over, the account has one fresh budget', async () => {
      const id = key();
      await fill(id);
      c.advance(3_600_000);
      for (let i = 0; i < 5; i++) expect((await l.consume(id, 5, MIN)).allowed).toBe(true);
      expect((await l.consume(id, 5, MIN)).allowed).toBe(false);
    });
  });
});

if (redisUrl) {
  describe('Redis limiter across nodes', () => {
    it('gives two limiters (two nodes) on one Redis one shared budget', async () => {
      const clock = fakeClock();
      const prefix = uniqueRedisPrefix();
      const a = createRedisLimiter({ url: redisUrl, prefix, timeoutMs: 1000, clock });
      const b = createRedisLimiter({ url: redisUrl, prefix, timeoutMs: 1000, clock });
      await Promise.all([a.probe(2000), b.probe(2000)]);
      try {
        const results = [];
        for (let i = 0; i < 6; i++) results.push((await (i % 2 ? a : b).consume('acct:x', 4, MIN)).allowed);
        expect(results).toEqual([true, true, true, true, false, false]);
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
}
