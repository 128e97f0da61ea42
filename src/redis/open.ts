import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { createRedisBreaker, type RedisBreaker, type RedisHealth } from './breaker.js';
import { createRedisClient, dedupeErrors, pingWithin } from './client.js';

/** A message handler for one pub/sub channel. */
export type ChannelHandler = (message: string) => void;

/**
 * The node's shared Redis: one connection for data (PNG cache, locks, publishing), one for
 * subscriptions (revocation notices, capture wake-ups), and the breaker every Redis user
 * consults. The rate limiter keeps a connection of its own (see ratelimit/redis.ts).
 */
export interface RedisModule {
  readonly client: Redis;
  readonly breaker: RedisBreaker;
  /** Key prefix of this deployment (CARDSHOT_REDIS_PREFIX). */
  readonly prefix: string;
  /** The longest a request-path command may take (CARDSHOT_REDIS_TIMEOUT_MS). */
  readonly timeoutMs: number;
  /** Calls `handler` for every message on `channel` (prefixed by the caller). */
  subscribe(channel: string, handler: ChannelHandler): void;
  /** Called after the subscriber connection comes back: messages sent meanwhile were missed. */
  onResubscribed(listener: () => void): void;
  /** PUBLISH through the breaker; resolves to the number of receivers. */
  publish(channel: string, message: string): Promise<number>;
  health(): RedisHealth & { subscriber: 'ready' | 'connecting' };
  close(): Promise<void>;
}

/**
 * Data writes may carry a PNG of a few MiB, so the connection-level time-out is generous;
 * request-path reads get the short CARDSHOT_REDIS_TIMEOUT_MS through the breaker instead.
 */
const DATA_COMMAND_TIMEOUT_MS = 5000;

/** Connects to `url` (in the background: start-up never fails or waits long on Redis). */
export async function openRedis(opts: {
  url: string;
  prefix: string;
  timeoutMs: number;
  log: Logger;
}): Promise<RedisModule> {
  const { log } = opts;
  const client = createRedisClient(opts.url, {
    timeoutMs: DATA_COMMAND_TIMEOUT_MS,
    name: 'cardshot-data',
    onError: dedupeErrors((err) => log.debug({ err }, 'redis client error')),
  });
  const breaker = createRedisBreaker({
    probe: (ms) => pingWithin(client, ms),
    timeoutMs: opts.timeoutMs,
    log,
  });
  // Subscriptions wait for the connection (offline queue on): nothing on the request path
  // waits for this client, and ioredis subscribes again by itself after a reconnect.
  const subscriber = client.duplicate({
    enableOfflineQueue: true,
    maxRetriesPerRequest: null,
    commandTimeout: undefined,
    connectionName: 'cardshot-subscriber',
  });
  subscriber.on(
    'error',
    dedupeErrors((err) => log.debug({ err }, 'redis subscriber error')),
  );
  const handlers = new Map<string, ChannelHandler[]>();
  const resubscribed: Array<() => void> = [];
  let everReady = false;
  const missed = () => {
    for (const l of resubscribed) l();
  };
  // Notices published while this node could not reach Redis may be lost even when the
  // subscriber's connection survives (a black hole, not a reset): `missedNotices` says so.
  let missedNotices = false;
  breaker.onTrip(() => {
    missedNotices = true;
  });
  subscriber.on('ready', () => {
    if (everReady) {
      missedNotices = false;
      missed();
    }
    everReady = true;
  });
  breaker.onRecover(() => {
    if (!missedNotices) return; // the subscriber reconnected meanwhile and said so
    missedNotices = false;
    // A subscriber left silent by a black hole gets a fresh connection (it then reports
    // 'ready' again); one that answers keeps its subscriptions, and what it missed is dropped.
    pingWithin(subscriber, opts.timeoutMs * 4).then(missed, () => {
      missedNotices = true;
    });
  });
  subscriber.on('message', (channel: string, message: string) => {
    for (const h of handlers.get(channel) ?? []) {
      try {
        h(message);
      } catch (err) {
        log.error({ err, channel }, 'redis message handler failed');
      }
    }
  });

  // The first requests should not fall back needlessly: wait briefly for the first connection.
  await breaker.run(() => pingWithin(client, 1000), 1000).catch(() => {});

  return {
    client,
    breaker,
    prefix: opts.prefix,
    timeoutMs: opts.timeoutMs,
    subscribe(channel, handler) {
      const list = handlers.get(channel);
      if (list) {
        list.push(handler);
        return;
      }
      handlers.set(channel, [handler]);
      subscriber.subscribe(channel).catch((err) => log.warn({ err, channel }, 'redis subscribe failed'));
    },
    onResubscribed: (l) => resubscribed.push(l),
    publish: (channel, message) => breaker.run(() => client.publish(channel, message)),
    health: () => ({
      ...breaker.health(),
      subscriber: subscriber.status === 'ready' ? 'ready' : 'connecting',
    }),
    async close() {
      breaker.close();
      subscriber.disconnect();
      // QUIT lets replies in flight (a last cache write, a lock release) finish first.
      await client.quit().catch(() => client.disconnect());
    },
  };
}
