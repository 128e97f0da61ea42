/**
 * The rate-limit area: per-process limits by default; with REDIS_URL, shared limits that fall
 * back to per-process ones whenever the node's Redis breaker is open. It also reports the
 * readiness of Redis, which the limiter probes on its own connection.
 */
import type { Logger } from 'pino';
import { type Area, startArea } from '../area.js';
import type { Clock } from '../lib/clock.js';
import { dedupeErrors } from '../redis/client.js';
import type { RedisModule } from '../redis/open.js';
import type { RedisConfig } from '../redis/settings.js';
import { createFailoverLimiter } from './failover.js';
import type { RateLimiter } from './limiter.js';
import { createMemoryLimiter } from './memory.js';
import { createRedisLimiter } from './redis.js';

/** The limiter the app uses; `degraded` is true while shared limits fell back to per-process ones. */
export type AreaLimiter = RateLimiter & { readonly degraded?: boolean };

/**
 * Creates the limiter. Start-up waits briefly for the first Redis connection so the first
 * requests do not fall back needlessly, but never fails on Redis.
 */
export async function createRateLimitArea(
  config: RedisConfig,
  deps: { redis: RedisModule | null; log: Logger; clock?: Clock },
): Promise<Area<AreaLimiter>> {
  const { redis, log, clock } = deps;
  return startArea<AreaLimiter>(log, async (parts) => {
    const memory = createMemoryLimiter(clock ? { clock } : {});
    if (config.redisUrl === '' || !redis) {
      parts.add('rate limiter', () => memory.close());
      return { service: memory };
    }
    const redisLimiter = createRedisLimiter({
      url: config.redisUrl,
      prefix: config.redisPrefix,
      timeoutMs: config.redisTimeoutMs,
      ...(clock ? { clock } : {}),
      onClientError: dedupeErrors((err) => log.debug({ err }, 'redis client error')),
    });
    await redisLimiter.probe(1000).catch(() => {});
    const limiter = createFailoverLimiter({
      primary: redisLimiter,
      fallback: memory,
      timeoutMs: config.redisTimeoutMs,
      log,
      breaker: redis.breaker,
    });
    parts.add('rate limiter', () => limiter.close());
    return {
      service: limiter,
      checks: {
        // Not critical: limits, caching and coordination fall back to per-node ones while Redis is away.
        redis: {
          critical: false,
          run: async () => {
            await redisLimiter.probe(1000);
            const h = redis.health();
            if (h.state === 'down')
              throw new Error(`bypassed since ${new Date(h.since).toISOString()}: ${h.lastError}`);
            return `subscriber ${h.subscriber}`;
          },
          fix: 'check that Redis is running and REDIS_URL points at it; meanwhile each node limits and caches on its own',
        },
      },
      samples: { 'rate limiter': () => ({ rateLimitDegraded: limiter.degraded ? 1 : 0 }) },
    };
  });
}
