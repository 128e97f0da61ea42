import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type CacheEntry, createTieredCache, type PngCache } from '../../src/cache/cache.js';
import { createDiskCache } from '../../src/cache/disk.js';
import { createMemoryCache } from '../../src/cache/memory.js';
import { createRedisCache } from '../../src/cache/redis.js';
import { openRedis } from '../../src/redis/open.js';
import { type PrivateRedis, redisServerAvailable, startPrivateRedis } from '../helpers/redis-server.js';

const dirs: string[] = [];
async function tmp(): Promise<string> {
  const d = await mkdtemp(path.join(os.tmpdir(), 'cardshot-cache-'));
  dirs.push(d);
  return d;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const entry = (bytes: number, fill = 1, expiresAt: number | null = null): CacheEntry => ({
  body: Buffer.alloc(bytes, fill),
  etag: `e${fill}`,
  storedAt: Date.now(),
  expiresAt,
  meta: { status: '200' },
});

// The Redis tier is bounded by Redis's own maxmemory with an LRU policy (what docs/deploy.md
// tells operators to set), so its contract runs on a private, real redis-server whose
// maxmemory is set to the test's budget above what the empty server already uses.
let privateRedis: PrivateRedis | undefined;
afterAll(async () => privateRedis?.close());

async function redisTier(maxBytes: number): Promise<PngCache> {
  privateRedis ??= await startPrivateRedis();
  const { admin } = privateRedis;
  await admin.flushall();
  await admin.config('SET', 'maxmemory', '0');
  await admin.config('SET', 'maxmemory-policy', 'allkeys-lru');
  await admin.config('SET', 'maxmemory-samples', '10');
  const log = pino({ level: 'silent' });
  const redis = await openRedis({ url: privateRedis.url, prefix: 'contract:', timeoutMs: 100, log });
  const cache = createRedisCache({ redis, maxEntryBytes: maxBytes, ttlSeconds: 3600, log });
  // Measured with this cache's connections open: their buffers count in used_memory too.
  await redis.client.ping();
  const used = Number(/^used_memory:(\d+)/m.exec(await admin.info('memory'))![1]);
  await admin.config('SET', 'maxmemory', String(used + maxBytes));
  return {
    ...cache,
    async close() {
      await cache.close();
      await redis.close();
    },
  };
}

const implementations: Array<[string, (maxBytes: number) => Promise<PngCache>]> = [
  ['memory', async (maxBytes) => createMemoryCache({ maxBytes })],
  ['disk', async (maxBytes) => createDiskCache({ dir: await tmp(), maxBytes })],
  [
    'memory+disk',
    async (maxBytes) =>
      createTieredCache([
        { name: 'memory', cache: createMemoryCache({ maxBytes }) },
        { name: 'disk', cache: createDiskCache({ dir: await tmp(), maxBytes }) },
      ]),
  ],
  ...(redisServerAvailable()
    ? [['redis', redisTier] as [string, (maxBytes: number) => Promise<PngCache>]]
    : []),
];

// One contract, every implementation (design.md §8).
for (const [name, make] of implementations) {
  // The Redis tier starts its own redis-server (see redisTier).
  describe(`PNG cache contract: ${name}`, { tags: name === 'redis' ? ['process'] : [] }, () => {
    it('returns what was stored, byte for byte, with its metadata', async () => {
      const c = await make(1 << 20);
      const e = entry(1000, 7);
      await c.set('abc123', e);
      const got = await c.get('abc123');
      expect(got?.body.equals(e.body)).toBe(true);
      expect(got?.etag).toBe('e7');
      expect(got?.storedAt).toBe(e.storedAt);
      expect(got?.meta).toEqual({ status: '200' });
      expect(await c.get('missing')).toBeUndefined();
      await c.close();
    });

    it('treats an expired entry as missing', async () => {
      const c = await make(1 << 20);
      await c.set('old', entry(10, 1, Date.now() - 1));
      await c.set('fresh', entry(10, 2, Date.now() + 60_000));
      expect(await c.get('old')).toBeUndefined();
      expect((await c.get('fresh'))?.etag).toBe('e2');
      await c.close();
    });

    it('stays within its byte budget, evicting the least recently used', async () => {
      // Entries under a sixteenth of the budget each (the most one entry may take in memory and
      // on disk). Redis keeps the whole budget as one maxmemory and its LRU clock ticks once a
      // second, so it is given few keys, where its sampling sees every one of them.
      const [budget, count, size, most] =
        name === 'redis' ? [50_000, 10, 10_000, 5] : [160_000, 20, 9_000, 17];
      const c = await make(budget);
      for (let i = 0; i < count; i++) await c.set(`k${i}`, entry(size, i));
      const present = (await Promise.all(Array.from({ length: count }, (_, i) => c.get(`k${i}`)))).filter(
        Boolean,
      );
      expect(present.length).toBeLessThanOrEqual(most);
      expect(await c.get(`k${count - 1}`)).toBeDefined();
      expect(await c.get('k0')).toBeUndefined();
      await c.close();
    });

    it('deletes', async () => {
      const c = await make(1 << 20);
      await c.set('gone', entry(10));
      await c.delete('gone');
      expect(await c.get('gone')).toBeUndefined();
      await c.close();
    });

    it('refuses keys that could escape the cache directory', async () => {
      const c = await make(1 << 20);
      await expect(c.set('../../etc/passwd', entry(10))).rejects.toThrow(/invalid cache key/);
      await c.close();
    });
  });
}

// Issue 26 §2: two 120 MB captures of one free account evicted every other account's entries.
describe('one entry cannot flush the others', () => {
  for (const [name, make] of [
    ['memory', async (max: number) => createMemoryCache({ maxBytes: max })],
    ['disk', async (max: number) => createDiskCache({ dir: await tmp(), maxBytes: max })],
  ] as const) {
    it(`${name}: an entry over a sixteenth of the budget is not stored, and evicts nothing`, async () => {
      const c = await make(1_600_000);
      for (let i = 0; i < 10; i++) await c.set(`victim${i}`, entry(50_000, i));
      // A hostile account's two huge captures: each alone would have taken most of the budget.
      await c.set('huge1', entry(1_000_000, 100));
      await c.set('huge2', entry(1_000_000, 101));
      await c.set('fits', entry(90_000, 102));
      expect(await c.get('huge1')).toBeUndefined();
      expect(await c.get('huge2')).toBeUndefined();
      expect((await c.get('fits'))?.body.length).toBe(90_000);
      for (let i = 0; i < 10; i++) expect((await c.get(`victim${i}`))?.body[0]).toBe(i);
      await c.close();
    });
  }
});

describe('disk cache', () => {
  it('survives a restart', async () => {
    const dir = await tmp();
    const a = createDiskCache({ dir, maxBytes: 1 << 20 });
    await a.set('persist', entry(500, 3));
    await a.close();
    const b = createDiskCache({ dir, maxBytes: 1 << 20 });
    expect((await b.get('persist'))?.body.equals(entry(500, 3).body)).toBe(true);
    await b.close();
  });

  it('answers a card at once while its write is still queued, and keeps it through close()', async () => {
    const dir = await tmp();
    const a = createDiskCache({ dir, maxBytes: 1 << 20 });
    const written = a.set('queued', entry(300, 5));
    // Not awaited: the write happens behind the response, yet the entry is already readable.
    expect((await a.get('queued'))?.etag).toBe('e5');
    await a.close(); // flushes writes it has accepted
    await written;
    const b = createDiskCache({ dir, maxBytes: 1 << 20 });
    expect((await b.get('queued'))?.body.equals(entry(300, 5).body)).toBe(true);
    await b.close();
  });

  it('a delete issued while the write is queued wins', async () => {
    const dir = await tmp();
    const c = createDiskCache({ dir, maxBytes: 1 << 20 });
    void c.set('gone', entry(50, 6));
    await c.delete('gone');
    expect(await c.get('gone')).toBeUndefined();
    await c.close();
    const again = createDiskCache({ dir, maxBytes: 1 << 20 });
    expect(await again.get('gone')).toBeUndefined();
    await again.close();
  });

  it('keeps the newest entry when a key is stored twice before it reaches the disk', async () => {
    const dir = await tmp();
    const a = createDiskCache({ dir, maxBytes: 1 << 20 });
    void a.set('twice', entry(40, 1));
    await a.set('twice', entry(40, 2));
    await a.close();
    const b = createDiskCache({ dir, maxBytes: 1 << 20 });
    expect((await b.get('twice'))?.etag).toBe('e2');
    await b.close();
  });

  it('treats a corrupt file as a miss and removes it', async () => {
    const dir = await tmp();
    const c = createDiskCache({ dir, maxBytes: 1 << 20 });
    await c.set('corrupt', entry(10));
    const shard = path.join(dir, 'co');
    await writeFile(path.join(shard, 'corrupt.bin'), 'garbage without a header');
    expect(await c.get('corrupt')).toBeUndefined();
    expect(await readdir(shard)).toEqual([]);
    await c.close();
  });

  it("removes a crash's leftover temporary files at start, never a write in flight", async () => {
    const dir = await tmp();
    await mkdir(path.join(dir, 'ab'), { recursive: true });
    const stale = path.join(dir, 'ab', 'abc.bin.0a1b2c.tmp');
    const inFlight = path.join(dir, 'ab', 'abd.bin.3d4e5f.tmp');
    await writeFile(stale, 'half a file');
    const now = Date.now() / 1000;
    await utimes(stale, now - 3600, now - 3600);
    // Written just now, as a write in flight when the cache starts (in production: this process's
    // writes that begin while the scan is still reading, or another process's).
    await writeFile(inFlight, 'half a file');
    const c = createDiskCache({ dir, maxBytes: 1 << 20 });
    await c.close(); // waits for the start-up scan
    expect((await readdir(path.join(dir, 'ab'))).sort()).toEqual(['abd.bin.3d4e5f.tmp']);
  });

  it('counts files from an earlier run against the budget', async () => {
    const dir = await tmp();
    const a = createDiskCache({ dir, maxBytes: 1 << 20 });
    for (let i = 0; i < 6; i++) await a.set(`p${i}`, entry(10_000, i));
    await a.close();
    const b = createDiskCache({ dir, maxBytes: 35_000 });
    await b.close(); // waits for the start-up scan and its eviction
    const stats = b.stats().disk!;
    expect(stats.bytes).toBeLessThanOrEqual(35_000);
    expect(stats.entries).toBe(3);
  });
});

describe('tiered cache', () => {
  it('fills the memory tier from a disk hit', async () => {
    const memory = createMemoryCache({ maxBytes: 1 << 20 });
    const disk = createDiskCache({ dir: await tmp(), maxBytes: 1 << 20 });
    await disk.set('warm', entry(100, 4));
    const c = createTieredCache([
      { name: 'memory', cache: memory },
      { name: 'disk', cache: disk },
    ]);
    expect(await memory.get('warm')).toBeUndefined();
    expect((await c.get('warm'))?.etag).toBe('e4');
    expect((await memory.get('warm'))?.etag).toBe('e4');
    expect(c.stats()).toMatchObject({ memory: { entries: 1 }, disk: { entries: 1 } });
    await c.close();
  });
});

describe.skipIf(!redisServerAvailable())(
  'tiered cache with Redis (the scale-out order)',
  { tags: ['process'] },
  () => {
    it('a node that never saw an entry reads it from Redis and keeps it in its memory and disk', async () => {
      const shared = await redisTier(1 << 20);
      const nodeA = createTieredCache([
        { name: 'memory', cache: createMemoryCache({ maxBytes: 1 << 20 }) },
        { name: 'disk', cache: createDiskCache({ dir: await tmp(), maxBytes: 1 << 20 }) },
        { name: 'redis', cache: shared },
      ]);
      const memoryB = createMemoryCache({ maxBytes: 1 << 20 });
      const diskB = createDiskCache({ dir: await tmp(), maxBytes: 1 << 20 });
      const nodeB = createTieredCache([
        { name: 'memory', cache: memoryB },
        { name: 'disk', cache: diskB },
        { name: 'redis', cache: shared },
      ]);
      await nodeA.set('across', entry(2000, 9));
      expect((await nodeB.get('across'))?.body.equals(entry(2000, 9).body)).toBe(true);
      expect((await memoryB.get('across'))?.etag).toBe('e9');
      await diskB.close(); // flushes the write made behind the answer
      expect(diskB.stats().disk).toMatchObject({ entries: 1 });
      await nodeA.close();
      await memoryB.close();
      await shared.close();
    });
  },
);
