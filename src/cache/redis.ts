import type { Logger } from 'pino';
import type { RedisModule } from '../redis/open.js';
import { assertCacheKey, isExpired, type PngCache } from './cache.js';
import { decodeEntry, encodeEntry } from './codec.js';

/** What the Redis tier knows of itself and of the Redis it shares, for /readyz and metrics. */
export interface RedisCacheHealth {
  state: 'up' | 'down';
  hits: number;
  misses: number;
  writes: number;
  /** Entries not stored because they exceed CARDSHOT_CACHE_REDIS_MAX_ENTRY_BYTES. */
  tooLarge: number;
  /** Reads and writes that failed or were bypassed while Redis was down. */
  errors: number;
  /** From INFO, sampled every minute: the whole Redis, not only this cache. */
  usedMemory: number | null;
  maxMemory: number | null;
  evictionPolicy: string | null;
}

export type RedisPngCache = PngCache & { health(): RedisCacheHealth };

const SAMPLE_EVERY_MS = 60_000;

/**
 * The shared PNG tier: one Redis string per entry (`<prefix>png:<key>`, the disk file's
 * format) with a TTL on every key: the entry's own expiry, capped at `ttlSeconds` (cards
 * have none of their own). Entries over `maxEntryBytes` stay local. The byte bound is Redis's
 * own `maxmemory` with an LRU eviction policy (docs/deploy.md); this tier warns at start when
 * Redis has none. Every command goes through the node's breaker, so a Redis that is down or
 * slow turns this tier into a miss within CARDSHOT_REDIS_TIMEOUT_MS, never into an error.
 */
export function createRedisCache(opts: {
  redis: RedisModule;
  maxEntryBytes: number;
  ttlSeconds: number;
  log: Logger;
}): RedisPngCache {
  const { redis, log } = opts;
  const { client, breaker } = redis;
  const keyOf = (key: string) => `${redis.prefix}png:${key}`;
  const counts = { hits: 0, misses: 0, writes: 0, tooLarge: 0, errors: 0 };
  const sampled = {
    usedMemory: null as number | null,
    maxMemory: null as number | null,
    evictionPolicy: null as string | null,
    keys: 0,
  };
  let warned = false;

  const sample = async () => {
    if (breaker.open) return;
    try {
      const [info, keys] = await Promise.all([client.info('memory'), client.dbsize()]);
      const field = (name: string) => new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim() ?? null;
      sampled.usedMemory = Number(field('used_memory')) || 0;
      sampled.maxMemory = Number(field('maxmemory')) || 0;
      sampled.evictionPolicy = field('maxmemory_policy');
      sampled.keys = keys;
      if (!warned && (sampled.maxMemory === 0 || sampled.evictionPolicy === 'noeviction')) {
        warned = true;
        log.warn(
          { maxmemory: sampled.maxMemory, policy: sampled.evictionPolicy },
          'Redis has no maxmemory with an eviction policy: PNGs there are bounded only by their TTL (set maxmemory and maxmemory-policy allkeys-lru; see docs/deploy.md)',
        );
      }
    } catch {
      // INFO may be disabled on a managed Redis; the cache works without these figures.
    }
  };
  void sample();
  const sampler = setInterval(() => void sample(), SAMPLE_EVERY_MS);
  sampler.unref();

  return {
    async get(key) {
      assertCacheKey(key);
      if (breaker.open) {
        counts.errors++;
        return undefined;
      }
      let raw: Buffer | null;
      try {
        raw = await breaker.run(() => client.getBuffer(keyOf(key)));
      } catch {
        counts.errors++;
        return undefined;
      }
      const entry = raw ? decodeEntry(raw) : undefined;
      if (!entry || isExpired(entry)) {
        counts.misses++;
        return undefined;
      }
      counts.hits++;
      return entry;
    },
    async set(key, entry) {
      assertCacheKey(key);
      const ttlMs = Math.min(
        opts.ttlSeconds * 1000,
        entry.expiresAt === null ? Number.POSITIVE_INFINITY : entry.expiresAt - Date.now(),
      );
      if (ttlMs < 1000 || breaker.open) return;
      const data = encodeEntry(entry);
      if (data.length > opts.maxEntryBytes) {
        counts.tooLarge++;
        return;
      }
      try {
        // A write of a few MiB may take longer than a read: it is off the request path, so it
        // gets the connection's own time-out rather than the request-path one.
        await breaker.run(() => client.set(keyOf(key), data, 'PX', Math.floor(ttlMs)), 5000);
        counts.writes++;
      } catch {
        counts.errors++;
      }
    },
    async delete(key) {
      assertCacheKey(key);
      await breaker
        .run(() => client.del(keyOf(key)))
        .catch(() => {
          counts.errors++;
        });
    },
    stats() {
      // Redis is shared by every node (and with rate limits and locks): these are its figures.
      return { redis: { entries: sampled.keys, bytes: sampled.usedMemory ?? 0 } };
    },
    health: () => ({ state: breaker.open ? 'down' : 'up', ...counts, ...sampled }),
    async close() {
      clearInterval(sampler);
    },
  };
}
