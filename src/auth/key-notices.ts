import type { Logger } from 'pino';
import { createRedisClient, pingWithin } from '../redis/client.js';
import type { RedisModule } from '../redis/open.js';
import { isId } from './keys.js';

/**
 * Revocation notices: a revoke, rotation or plan change on any node (dashboard) or in the CLI
 * publishes the key id on `<prefix>keys` (`*` for "every key": a plan change), and every
 * node's authenticator drops what it cached for it, so the change holds everywhere within a
 * round trip instead of CARDSHOT_KEY_CACHE_SECONDS. A notice that cannot be sent or is missed
 * (Redis down, subscriber reconnecting) costs at most that cache time: the key cache's own
 * expiry stays the backstop, and a reconnected subscriber drops the whole cache.
 */
export interface KeyNotices {
  /** Tells every node to forget `keyId` (every key when omitted); false when Redis did not take it. */
  publish(keyId?: string): Promise<boolean>;
  health(): { received: number; published: number; failed: number; lastReceivedAt: number | null };
  close(): Promise<void>;
}

/** The channel of a deployment's notices. */
export function noticeChannel(prefix: string): string {
  return `${prefix}keys`;
}

const ALL = '*';

/** Subscribes this node's authenticator to the notices and publishes its own. */
export function createKeyNotices(deps: {
  redis: RedisModule;
  invalidate: (keyId?: string) => void;
  log: Logger;
}): KeyNotices {
  const { redis, log } = deps;
  const channel = noticeChannel(redis.prefix);
  const counts = { received: 0, published: 0, failed: 0, lastReceivedAt: null as number | null };

  redis.subscribe(channel, (message) => {
    if (message !== ALL && !isId(message, 'key')) return;
    counts.received++;
    counts.lastReceivedAt = Date.now();
    deps.invalidate(message === ALL ? undefined : message);
  });
  // Notices sent while the subscriber was away were missed: forget every cached key once.
  redis.onResubscribed(() => {
    log.info('revocation notices: subscribed again; verified-key cache cleared');
    deps.invalidate();
  });

  return {
    async publish(keyId) {
      try {
        await redis.publish(channel, keyId ?? ALL);
        counts.published++;
        return true;
      } catch (err) {
        counts.failed++;
        log.warn(
          { err: (err as Error).message, keyId },
          'could not publish a revocation notice; other nodes drop the key when their key cache expires',
        );
        return false;
      }
    },
    health: () => ({ ...counts }),
    async close() {},
  };
}

/**
 * For the CLI, a separate process with no subscriber: connects, publishes each notice and
 * disconnects. Resolves to an error message, or null when Redis took every notice.
 */
export async function sendKeyNotices(
  url: string,
  prefix: string,
  keyIds: ReadonlyArray<string | undefined>,
  timeoutMs = 2000,
): Promise<string | null> {
  const client = createRedisClient(url, { timeoutMs, name: 'cardshot-cli' });
  client.on('error', () => {});
  try {
    await pingWithin(client, timeoutMs);
    const unique = keyIds.includes(undefined) ? [ALL] : [...new Set(keyIds as string[])];
    for (const id of unique) await client.publish(noticeChannel(prefix), id);
    return null;
  } catch (err) {
    return (err as Error).message;
  } finally {
    client.disconnect();
  }
}
