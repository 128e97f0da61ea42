/**
 * The cache area: the PNG cache in tiers (memory, disk, and with Redis a shared tier) and, with
 * Redis, the cross-node single-flight for screenshots.
 */
import path from 'node:path';
import type { Logger } from 'pino';
import { type Area, startArea } from '../area.js';
import type { RedisModule } from '../redis/open.js';
import type { StorageConfig } from '../storage/settings.js';
import { createTieredCache, type PngCache } from './cache.js';
import { createDiskCache } from './disk.js';
import { createMemoryCache } from './memory.js';
import { createRedisCache, type RedisPngCache } from './redis.js';
import type { CacheConfig } from './settings.js';
import { createSharedFlight, type SharedFlight } from './shared-flight.js';

/** The tiered cache, and its Redis tier and the shared flight when the node has Redis. */
export interface CacheServices {
  cache: PngCache;
  redisCache: RedisPngCache | null;
  flight: SharedFlight | null;
}

/** Creates the cache tiers; `onLookup` counts hits and misses per tier (metrics). */
export function createCacheArea(
  config: CacheConfig & Pick<StorageConfig, 'dataDir'>,
  deps: { redis: RedisModule | null; log: Logger; onLookup: (tier: string, hit: boolean) => void },
): Promise<Area<CacheServices>> {
  const { redis, log } = deps;
  return startArea(log, (parts) => {
    const redisCache =
      redis && config.cacheRedisMaxEntryBytes > 0
        ? createRedisCache({
            redis,
            maxEntryBytes: config.cacheRedisMaxEntryBytes,
            ttlSeconds: config.cacheRedisTtlSeconds,
            log,
          })
        : null;
    // Redis last: a node's own disk answers a repeat faster than a network round trip for
    // the PNG (bench/scale.ts), and a disk miss costs nothing (its index is in memory), so
    // the shared tier is asked only for what this node has never seen.
    const cache = createTieredCache(
      [
        { name: 'memory', cache: createMemoryCache({ maxBytes: config.cacheMemoryBytes }) },
        {
          name: 'disk',
          cache: createDiskCache({
            dir: path.join(config.dataDir, 'cache'),
            maxBytes: config.cacheDiskBytes,
            minFreeBytes: config.diskMinFreeBytes,
            log,
          }),
        },
        ...(redisCache ? [{ name: 'redis', cache: redisCache }] : []),
      ],
      deps.onLookup,
    );
    parts.add('cache', () => cache.close());
    const flight = redis ? createSharedFlight({ redis, cache, log }) : null;
    if (flight) parts.add('shared flight', () => flight.close());
    return {
      service: { cache, redisCache, flight },
      samples: { cache: () => ({ cacheTiers: cache.stats() }) },
    };
  });
}
