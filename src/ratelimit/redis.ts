import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { type Clock, steadyClock, systemClock } from '../lib/clock.js';
import { createRedisClient, pingWithin } from '../redis/client.js';
import { decision, type RateLimiter } from './limiter.js';

/**
 * The sliding-window log in a Redis sorted set per key (score = admission time in ms), updated
 * atomically by one Lua script so every node sees one budget. The caller's clock is used
 * rather than Redis TIME so the same fake clock drives both implementations in tests; nodes
 * are expected to keep NTP time (a skew of s seconds shifts the window by s). A node whose
 * clock steps back carries on from its last time (steadyClock) rather than going back.
 */
const SCRIPT = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if ARGV[5] == '1' then
  if count < limit then
    redis.call('ZADD', key, now, ARGV[4])
    count = count + 1
    allowed = 1
  end
  redis.call('PEXPIRE', key, window)
elseif count < limit then
  allowed = 1
end
local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return {allowed, count, first[2] or '-1'}
`;

type SlidingWindow = (
  key: string,
  now: number,
  windowMs: number,
  limit: number,
  member: string,
  consume: '0' | '1',
) => Promise<[number, number, string]>;

export interface RedisLimiter extends RateLimiter {
  /** Resolves when Redis answers a PING within `timeoutMs`. */
  probe(timeoutMs: number): Promise<void>;
  readonly client: Redis;
}

/**
 * A limiter on `url`. Commands never queue while disconnected (they fail at once); a caller
 * that must not wait longer than `timeoutMs` bounds each call itself (createFailoverLimiter).
 */
export function createRedisLimiter(opts: {
  url: string;
  prefix: string;
  timeoutMs: number;
  clock?: Clock;
  onClientError?: (err: Error) => void;
}): RedisLimiter {
  // A step back of this node's clock must not date its admissions in the future (steadyClock).
  const clock = steadyClock(opts.clock ?? systemClock);
  // Its own connection: a large PNG moving on the cache's connection must not delay a limit check.
  // The connection's own time-out is only a backstop: callers bound each call themselves
  // (the fail-over limiter, through the node's breaker), with a timer that does not mistake
  // a busy event loop for a silent Redis.
  const client = createRedisClient(opts.url, {
    timeoutMs: Math.max(1000, opts.timeoutMs),
    name: 'cardshot-limiter',
    ...(opts.onClientError ? { onError: opts.onClientError } : {}),
  });
  client.defineCommand('cardshotSlidingWindow', { numberOfKeys: 1, lua: SCRIPT });
  const run = (client as unknown as { cardshotSlidingWindow: SlidingWindow }).cardshotSlidingWindow.bind(
    client,
  );

  const call = async (key: string, limit: number, windowMs: number, consume: boolean) => {
    const now = clock.now();
    const member = `${now}-${randomBytes(6).toString('base64url')}`;
    const [allowed, count, first] = await run(
      `${opts.prefix}rl:${key}`,
      now,
      windowMs,
      limit,
      member,
      consume ? '1' : '0',
    );
    const oldest = Number(first);
    return decision(allowed === 1, count, oldest >= 0 ? oldest : undefined, now, limit, windowMs);
  };

  return {
    client,
    consume: (key, limit, windowMs) => call(key, limit, windowMs, true),
    peek: (key, limit, windowMs) => call(key, limit, windowMs, false),
    probe: (timeoutMs) => pingWithin(client, timeoutMs),
    async close() {
      client.disconnect();
    },
  };
}
