import { type ConfigOf, MiB, type SettingsGroup } from '../config/setting.js';

/** The Redis tier of the PNG cache. */
export const redisCacheSettings = {
  cacheRedisMaxEntryBytes: {
    kind: 'int',
    default: 4 * MiB,
    min: 0,
    max: 512 * MiB,
    description:
      "Largest PNG stored in the Redis cache tier (larger ones stay in the node's own memory and disk tiers). 0 turns the Redis tier off. Bound the tier's total with Redis maxmemory and an LRU policy (docs/deploy.md).",
  },
  cacheRedisTtlSeconds: {
    kind: 'int',
    default: 7 * 86_400,
    min: 60,
    max: 31_536_000,
    description:
      'Longest any PNG lives in Redis: cards (which never change) are dropped after it, screenshots after the shorter of it and their own cache time.',
  },
} as const satisfies SettingsGroup;

/** The node's own tiers: memory and disk. */
export const cacheSettings = {
  cacheMemoryBytes: {
    kind: 'int',
    default: 128 * MiB,
    min: 0,
    max: 64 * 1024 * MiB,
    description: 'Byte budget of the in-memory PNG cache (0 turns it off).',
  },
  cacheDiskBytes: {
    kind: 'int',
    default: 1024 * MiB,
    min: 0,
    max: 1024 * 1024 * MiB,
    description: 'Byte budget of the PNG cache on disk under CARDSHOT_DATA_DIR/cache (0 turns it off).',
  },
  diskMinFreeBytes: {
    kind: 'int',
    default: 128 * MiB,
    min: 0,
    max: 1024 * 1024 * MiB,
    description:
      "Free space kept on the data dir's disk: the disk cache gives space back (oldest first) and writes no more below it, so the database always has room; /readyz reports `degraded` under it.",
  },
} as const satisfies SettingsGroup;

/** What the tiered PNG cache reads. */
export type CacheConfig = ConfigOf<typeof redisCacheSettings & typeof cacheSettings>;
