import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { errnoCode } from '../lib/os-error.js';
import { assertCacheKey, type CacheEntry, isExpired, type PngCache } from './cache.js';
import { decodeEntry as decode, encodeEntry as encode } from './codec.js';
import { explainWriteError, freeBytes, mib } from './disk-space.js';
import { MAX_ENTRY_SHARE, nullCache } from './memory.js';

// Re-exported so the readiness check (health/storage.ts) keeps measuring the data disk through
// the disk cache, the same way the floor does.

/**
 * PNGs as files under `dir`, bounded by bytes with least-recently-used eviction. It survives
 * restarts, so a redeploy does not re-render every card. Each file is one JSON header line
 * followed by the PNG bytes, written to a temporary name and renamed, so a crash mid-write
 * never leaves a half file under a real key.
 */
export function createDiskCache(opts: {
  dir: string;
  maxBytes: number;
  /**
   * Free space kept on the cache's disk: below it, the oldest entries are removed to make room
   * and a write that still would not fit is skipped (the card stays in the memory tier). The
   * database lives on the same disk and must always be able to grow. 0: no floor.
   */
  minFreeBytes?: number;
  log?: Logger;
}): PngCache {
  if (opts.maxBytes <= 0) return nullCache('disk');
  // Map order is the LRU order: oldest first. Sizes are what the budget counts.
  const index = new Map<string, number>();
  let bytes = 0;
  let closed = false;
  let scanned = false;
  // Writes waiting to reach the disk, one at a time in arrival order; a get() for a key in
  // here answers from memory so a card is never missing between render and write.
  const writes = new Map<string, { entry: CacheEntry; done: Promise<void>; settle: () => void }>();
  const order: string[] = [];
  const shards = new Set<string>();
  let draining = false;

  const fileOf = (key: string) => path.join(opts.dir, key.slice(0, 2), `${key}.bin`);
  const touch = (key: string, size: number) => {
    const old = index.get(key);
    if (old !== undefined) {
      bytes -= old;
      index.delete(key);
    }
    index.set(key, size);
    bytes += size;
  };
  const forget = (key: string) => {
    const old = index.get(key);
    if (old !== undefined) {
      bytes -= old;
      index.delete(key);
    }
  };
  const evict = async () => {
    while (bytes > opts.maxBytes && index.size > 0) {
      const oldest = index.keys().next().value as string;
      forget(oldest);
      await rm(fileOf(oldest), { force: true }).catch(() => {});
    }
  };

  // The index of files from earlier runs is rebuilt in the background; until it is done a
  // get() still reads the file directly, so nothing is missed, only counted late.
  const ready = scan(opts.dir, touch, Date.now() - TMP_STALE_MS, opts.log)
    .then(evict)
    .finally(() => {
      scanned = true;
    });

  // Warnings about one cause (a full or read-only disk) at most once a minute, with a count.
  let warned: { cause: string; at: number; skipped: number } | undefined;
  const warn = (cause: string, msg: string, fields: Record<string, unknown>) => {
    const t = Date.now();
    if (warned && warned.cause === cause && t - warned.at < 60_000) {
      warned.skipped++;
      return;
    }
    const skipped = warned?.cause === cause ? warned.skipped : 0;
    warned = { cause, at: t, skipped: 0 };
    opts.log?.warn({ ...fields, ...(skipped ? { similarSinceLastWarning: skipped } : {}) }, msg);
  };

  /**
   * Gives space back until `size` more bytes leave `minFreeBytes` free; false when even an
   * empty cache would not (something else filled the disk): the write is skipped.
   */
  const makeRoom = async (size: number): Promise<boolean> => {
    const floor = opts.minFreeBytes ?? 0;
    if (floor <= 0) return true;
    const free = await freeBytes(opts.dir);
    if (free === undefined) return true;
    let missing = floor + size - free;
    while (missing > 0 && index.size > 0) {
      const oldest = index.keys().next().value as string;
      missing -= index.get(oldest) ?? 0;
      forget(oldest);
      await rm(fileOf(oldest), { force: true }).catch(() => {});
    }
    if (missing <= 0) return true;
    warn(
      'floor',
      `disk cache not written: the disk has ${mib(free)} MiB free, under the floor of ${mib(floor)} MiB (CARDSHOT_DISK_MIN_FREE_BYTES); cards stay in memory`,
      { dir: opts.dir },
    );
    return false;
  };

  const write = async (key: string, entry: CacheEntry) => {
    const data = encode(entry);
    // One entry takes at most its share of the budget: it cannot flush the others' entries.
    if (data.length > opts.maxBytes / MAX_ENTRY_SHARE) return;
    if (!(await makeRoom(data.length))) return;
    const file = fileOf(key);
    const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      const shard = path.dirname(file);
      if (!shards.has(shard)) {
        await mkdir(shard, { recursive: true });
        shards.add(shard);
      }
      await writeFile(tmp, data);
      await rename(tmp, file);
      touch(key, data.length);
      await evict();
    } catch (err) {
      // A full disk or a read-only volume degrades to memory-only caching, never a failed request.
      // The shard may have been removed under us: check it again next time.
      shards.delete(path.dirname(file));
      await rm(tmp, { force: true }).catch(() => {});
      const cause = await explainWriteError(err, opts.dir);
      warn(`write ${errnoCode(err)}`, `disk cache write failed: ${cause}; cards stay in memory`, {
        err,
        key,
      });
      if (errnoCode(err) === 'ENOSPC') {
        // Give space back at once (a tenth of the cache): the database shares this disk.
        const target = bytes * 0.9;
        while (bytes > target && index.size > 0) {
          const oldest = index.keys().next().value as string;
          forget(oldest);
          await rm(fileOf(oldest), { force: true }).catch(() => {});
        }
      }
    }
  };

  const drain = async () => {
    for (let key = order.shift(); key !== undefined; key = order.shift()) {
      const job = writes.get(key)!;
      const entry = job.entry;
      await write(key, entry);
      if (job.entry !== entry) {
        // Replaced while it was being written: write the newer entry before settling.
        order.unshift(key);
        continue;
      }
      writes.delete(key);
      job.settle();
    }
    draining = false;
  };

  return {
    async get(key) {
      if (closed) return undefined;
      assertCacheKey(key);
      const pending = writes.get(key);
      if (pending) return pending.entry;
      // Once the start-up scan is done the index knows every file, so a miss costs no thread-pool
      // round trip and no ENOENT error object (measured ~0.2 ms on every uncached request).
      if (scanned && !index.has(key)) return undefined;
      let raw: Buffer;
      try {
        raw = await readFile(fileOf(key));
      } catch {
        return undefined;
      }
      const entry = decode(raw);
      if (!entry || isExpired(entry)) {
        forget(key);
        await rm(fileOf(key), { force: true }).catch(() => {});
        return undefined;
      }
      touch(key, raw.length);
      return entry;
    },
    set(key, entry) {
      if (closed) return Promise.resolve();
      try {
        assertCacheKey(key);
      } catch (err) {
        return Promise.reject(err);
      }
      const queued = writes.get(key);
      if (queued) {
        queued.entry = entry;
        return queued.done;
      }
      let settle!: () => void;
      const done = new Promise<void>((resolve) => {
        settle = resolve;
      });
      writes.set(key, { entry, done, settle });
      order.push(key);
      if (!draining) {
        draining = true;
        // Write behind: the first write starts after the current I/O phase, so the response
        // that produced the card is sent before the disk competes with the next render.
        setImmediate(() => void drain());
      }
      return done;
    },
    async delete(key) {
      assertCacheKey(key);
      // A queued write would land after the delete and bring the entry back.
      await writes.get(key)?.done;
      forget(key);
      await rm(fileOf(key), { force: true }).catch(() => {});
    },
    stats() {
      return { disk: { entries: index.size, bytes } };
    },
    async close() {
      // Writes already accepted are finished first, so a graceful restart keeps them.
      await Promise.all([...writes.values()].map((w) => w.done));
      closed = true;
      await ready.catch(() => {});
    },
  };
}

/**
 * A temporary file older than this cache's start minus this margin is a crash's leftover; newer
 * ones are writes in flight (this process's own, which begin while the scan is still reading, or
 * another process's). The margin covers file times lagging the clock by a tick.
 */
const TMP_STALE_MS = 1_000;

async function scan(
  dir: string,
  touch: (key: string, size: number) => void,
  /** `.tmp` files last written before this time are removed. */
  staleBefore: number,
  log?: Logger,
): Promise<void> {
  const found: Array<{ key: string; size: number; mtime: number }> = [];
  let shards: string[];
  try {
    shards = await readdir(dir);
  } catch {
    return;
  }
  for (const shard of shards) {
    let names: string[];
    try {
      names = await readdir(path.join(dir, shard));
    } catch {
      continue;
    }
    for (const name of names) {
      const file = path.join(dir, shard, name);
      if (name.endsWith('.tmp')) {
        const st = await stat(file).catch(() => undefined);
        if (st && st.mtimeMs < staleBefore) await rm(file, { force: true }).catch(() => {});
        continue;
      }
      if (!name.endsWith('.bin')) continue;
      const st = await stat(file).catch(() => undefined);
      if (st) found.push({ key: name.slice(0, -4), size: st.size, mtime: st.mtimeMs });
    }
  }
  found.sort((a, b) => a.mtime - b.mtime);
  for (const f of found) touch(f.key, f.size);
  if (found.length > 0) log?.debug({ entries: found.length }, 'disk cache index rebuilt');
}
