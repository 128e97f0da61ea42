import { LRUCache } from 'lru-cache';
import { assertCacheKey, type CacheEntry, isExpired, type PngCache } from './cache.js';

/** Overhead charged per entry on top of the PNG bytes, so tiny entries cannot overrun the budget. */
const ENTRY_OVERHEAD = 512;

/**
 * The largest share of a cache's budget one entry may take. Issue 26 §2: two 120 MB captures
 * of one free account evicted every other account's cards and captures from the 128 MiB memory
 * tier; at 1/16 one account needs 16 maximal entries to do what one did.
 */
export const MAX_ENTRY_SHARE = 16;

/** An in-process LRU bounded by bytes. `maxBytes` 0 gives a cache that stores nothing. */
export function createMemoryCache(opts: { maxBytes: number }): PngCache {
  if (opts.maxBytes <= 0) return nullCache('memory');
  const maxEntry = Math.floor(opts.maxBytes / MAX_ENTRY_SHARE);
  const lru = new LRUCache<string, CacheEntry>({
    maxSize: opts.maxBytes,
    maxEntrySize: maxEntry,
    sizeCalculation: (e) => e.body.length + ENTRY_OVERHEAD,
  });
  return {
    async get(key) {
      const e = lru.get(key);
      if (e && isExpired(e)) {
        lru.delete(key);
        return undefined;
      }
      return e;
    },
    async set(key, entry) {
      assertCacheKey(key);
      // A larger entry is not stored: it would evict many others (it stays on disk, if it fits there).
      if (entry.body.length + ENTRY_OVERHEAD <= maxEntry) lru.set(key, entry);
    },
    async delete(key) {
      lru.delete(key);
    },
    stats() {
      return { memory: { entries: lru.size, bytes: lru.calculatedSize } };
    },
    async close() {
      lru.clear();
    },
  };
}

/** A cache tier that never holds anything (a tier turned off by configuration). */
export function nullCache(name: string): PngCache {
  return {
    get: async () => undefined,
    set: async () => {},
    delete: async () => {},
    stats: () => ({ [name]: { entries: 0, bytes: 0 } }),
    close: async () => {},
  };
}
