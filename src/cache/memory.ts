import { LRUCache } from 'lru-cache';
import { assertCacheKey, type CacheEntry, isExpired, type PngCache } from './cache.js';

/** Overhead charged per entry on top of the PNG bytes, so tiny entries cannot overrun the budget. */
const ENTRY_OVERHEAD = 512;

/** An in-process LRU bounded by bytes. `maxBytes` 0 gives a cache that stores nothing. */
export function createMemoryCache(opts: { maxBytes: number }): PngCache {
  if (opts.maxBytes <= 0) return nullCache('memory');
  const lru = new LRUCache<string, CacheEntry>({
    maxSize: opts.maxBytes,
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
      // Entries larger than the whole budget are skipped by lru-cache; that is what we want.
      if (entry.body.length + ENTRY_OVERHEAD <= opts.maxBytes) lru.set(key, entry);
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
