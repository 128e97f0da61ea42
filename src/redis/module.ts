/**
 * The Redis area: with REDIS_URL, the node's shared connections and the breaker every Redis user
 * consults; without it, nothing (every other area then keeps its state per process).
 */
import type { Logger } from 'pino';
import { type Area, startArea } from '../area.js';
import { openRedis, type RedisModule } from './open.js';
import type { RedisConfig } from './settings.js';

/** Opens the node's Redis when one is configured; start-up never fails on Redis. */
export async function createRedisArea(
  config: RedisConfig,
  deps: { log: Logger },
): Promise<Area<RedisModule | null>> {
  return startArea(deps.log, async (parts) => {
    if (config.redisUrl === '') return { service: null };
    const redis = await openRedis({
      url: config.redisUrl,
      prefix: config.redisPrefix,
      timeoutMs: config.redisTimeoutMs,
      log: deps.log,
    });
    parts.add('redis', () => redis.close());
    return { service: redis };
  });
}
