import type { Logger } from 'pino';
import { createRedisBreaker, type RedisBreaker } from '../redis/breaker.js';
import type { RateLimiter } from './limiter.js';
import type { RedisLimiter } from './redis.js';

/**
 * Redis first; when it errs or is slower than `timeoutMs`, the per-process limiter answers that
 * request and every later one (no request waits on a Redis known to be down) while the
 * breaker probes Redis in the background and switches back once it answers. The breaker is
 * the node's shared one when given, so a failure seen by the cache also bypasses the limiter.
 */
export function createFailoverLimiter(opts: {
  primary: RedisLimiter;
  fallback: RateLimiter;
  timeoutMs: number;
  log: Logger;
  breaker?: RedisBreaker;
}): RateLimiter & { readonly degraded: boolean } {
  const { primary, fallback, timeoutMs, log } = opts;
  const breaker = opts.breaker ?? createRedisBreaker({ probe: (ms) => primary.probe(ms), timeoutMs, log });
  // The node's breaker must not close while this connection is still silent (or reconnecting):
  // its probe is also what drops a connection a black hole left stuck (redis/client.ts).
  if (opts.breaker) opts.breaker.addProbe((ms) => primary.probe(ms));

  const via = async (op: 'consume' | 'peek', key: string, limit: number, windowMs: number) => {
    if (!breaker.open) {
      try {
        return await breaker.run(() => primary[op](key, limit, windowMs), timeoutMs);
      } catch {
        // The breaker logged it once; this request and the next are limited per process.
      }
    }
    return fallback[op](key, limit, windowMs);
  };

  return {
    get degraded() {
      return breaker.open;
    },
    consume: (key, limit, windowMs) => via('consume', key, limit, windowMs),
    peek: (key, limit, windowMs) => via('peek', key, limit, windowMs),
    async close() {
      if (!opts.breaker) breaker.close();
      await Promise.allSettled([primary.close(), fallback.close()]);
    },
  };
}
