import type { ConfigOf, SettingsGroup } from '../config/setting.js';

/** The node's shared Redis and how long it may take. */
export const redisSettings = {
  redisUrl: {
    kind: 'string',
    default: '',
    env: 'REDIS_URL',
    secret: true,
    description:
      'redis://host:6379/0 for running several nodes: shared rate limits, a shared PNG cache tier, one capture per URL across nodes (locks) and key-revocation notices. Empty: all of it is kept per process. When Redis is unreachable or slow, every node bypasses it within CARDSHOT_REDIS_TIMEOUT_MS and returns to it by itself.',
  },
  redisPrefix: {
    kind: 'string',
    default: 'cardshot:',
    description:
      'Prefix of every Redis key and channel Cardshot uses, so several deployments can share one Redis.',
  },
  redisTimeoutMs: {
    kind: 'int',
    default: 50,
    min: 5,
    max: 100,
    description:
      'Longest a request waits for Redis (a rate-limit check, a cache read, a lock) before the node bypasses Redis: limits per process, local cache, no cross-node locks, until a background probe finds it answering again.',
  },
} as const satisfies SettingsGroup;

/** What the Redis connections, the shared limiter and the breaker read. */
export type RedisConfig = ConfigOf<typeof redisSettings>;
