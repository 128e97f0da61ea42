import { createHash } from 'node:crypto';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CacheEntry } from '../../src/cache/cache.js';
import { createDiskCache } from '../../src/cache/disk.js';
import { freeBytes } from '../../src/cache/disk-space.js';
import { capturedLogger } from '../helpers/logs.js';
import { mountSmallDisk, type SmallDisk, smallDiskAvailable } from '../helpers/small-disk.js';

// The disk cache on a real small (tmpfs) disk: a full disk and a read-only one.
const MiB = 1024 * 1024;
let disk: SmallDisk | undefined;
afterEach(async () => {
  await disk?.close();
  disk = undefined;
});

const key = (i: number) => createHash('sha256').update(`entry ${i}`).digest('hex');
const entry = (i: number): CacheEntry => ({
  body: Buffer.alloc(256 * 1024, i % 251),
  etag: key(i).slice(0, 27),
  storedAt: Date.now(),
  expiresAt: null,
});

describe.skipIf(!smallDiskAvailable)('disk cache on a small disk', () => {
  it('keeps CARDSHOT_DISK_MIN_FREE_BYTES free, gives space back when something else fills the disk', async () => {
    disk = await mountSmallDisk(8 * MiB);
    const floor = 3 * MiB;
    const { log, lines } = capturedLogger();
    const cache = createDiskCache({
      dir: path.join(disk.dir, 'cache'),
      maxBytes: 100 * MiB,
      minFreeBytes: floor,
      log,
    });
    // 40 × 256 KiB = 10 MiB into an 8 MiB disk with a 3 MiB floor.
    for (let i = 0; i < 40; i++) await cache.set(key(i), entry(i));
    // Page rounding: a few KiB of slack.
    expect(await freeBytes(disk.dir)).toBeGreaterThanOrEqual(floor - 64 * 1024);
    const { entries } = cache.stats().disk as { entries: number };
    expect(entries).toBeGreaterThan(5);
    expect(entries).toBeLessThan(40);
    // The newest are kept, the oldest gave way.
    expect((await cache.get(key(39)))?.body.equals(entry(39).body)).toBe(true);
    expect(await cache.get(key(0))).toBeUndefined();

    // Something else takes the rest of the disk: the cache gives space back to the floor.
    const freeFirst = await disk.fill();
    await cache.set(key(100), entry(100));
    expect(await freeBytes(disk.dir)).toBeGreaterThanOrEqual(floor - 64 * 1024);
    const after = (cache.stats().disk as { entries: number }).entries;
    expect(after).toBeLessThan(entries);
    // Again, until even an empty cache cannot keep the floor: it holds nothing and says why.
    const free = await disk.fill();
    await cache.set(key(101), entry(101));
    await cache.set(key(102), entry(102));
    expect((cache.stats().disk as { entries: number }).entries).toBe(0);
    expect(await cache.get(key(102))).toBeUndefined();
    const skipped = lines.filter((l) =>
      /^disk cache not written: the disk has [\d.]+ MiB free, under the floor of 3\.0 MiB/.test(
        String(l.msg),
      ),
    );
    // Once, not once per card.
    expect(skipped).toHaveLength(1);
    await freeFirst();
    await free();
    await cache.close();
  });

  it('a read-only data dir: the log says read-only, not ENOENT: mkdir', async () => {
    disk = await mountSmallDisk(4 * MiB);
    disk.readOnly(true);
    const { log, lines } = capturedLogger();
    const dir = path.join(disk.dir, 'cache');
    const cache = createDiskCache({ dir, maxBytes: 10 * MiB, minFreeBytes: 0, log });
    await cache.set(key(1), entry(1));
    // The card is still answered (from the write queue, then not at all: memory tiers keep it).
    const warning = lines.find((l) => String(l.msg).startsWith('disk cache write failed'));
    expect(warning?.msg).toBe(
      `disk cache write failed: ${disk.dir}: read-only file system (EROFS); cards stay in memory`,
    );
    await cache.close();
    disk.readOnly(false);
  });
});
