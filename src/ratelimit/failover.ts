import type { Logger } from 'pino';
import type { RateLimiter } from './limiter.js';
import { type RedisLimiter, withTimeout } from './redis.js';

const PROBE_EVERY_MS = 500;

/**
 * Redis first; when it errs or is slower than `timeoutMs`, the per-process limiter answers that
 * request and every later one (no request waits on a Redis known to be down) while a background
 * probe pings Redis and switches back once it answers. Each switch is logged once.
 */
export function createFailoverLimiter(opts: {
  primary: RedisLimiter;
  fallback: RateLimiter;
  timeoutMs: number;
  log: Logger;
}): RateLimiter & { readonly degraded: boolean } {
  const { primary, fallback, timeoutMs, log } = opts;
  let degraded = false;
  let probeTimer: NodeJS.Timeout | undefined;
  let closed = false;

  const recover = () => {
    probeTimer = setTimeout(async () => {
      try {
        await primary.probe(timeoutMs * 4);
        degraded = false;
        probeTimer = undefined;
        log.info('rate limiter: Redis answers again; limits are shared across nodes again');
      } catch {
        if (!closed) recover();
      }
    }, PROBE_EVERY_MS);
    probeTimer.unref();
  };

  const degrade = (err: unknown) => {
    if (degraded) return;
    degraded = true;
    log.warn(
      { err: err instanceof Error ? err.message : String(err) },
      'rate limiter: Redis is unavailable; limiting per process until it answers again',
    );
    if (!closed) recover();
  };

  const via = async (op: 'consume' | 'peek', key: string, limit: number, windowMs: number) => {
    if (!degraded) {
      try {
        return await withTimeout(primary[op](key, limit, windowMs), timeoutMs);
      } catch (err) {
        degrade(err);
      }
    }
    return fallback[op](key, limit, windowMs);
  };

  return {
    get degraded() {
      return degraded;
    },
    consume: (key, limit, windowMs) => via('consume', key, limit, windowMs),
    peek: (key, limit, windowMs) => via('peek', key, limit, windowMs),
    async close() {
      closed = true;
      if (probeTimer) clearTimeout(probeTimer);
      await Promise.allSettled([primary.close(), fallback.close()]);
    },
  };
}
