import { Redis } from 'ioredis';
import { withTimeout } from '../lib/timeout.js';

/**
 * An ioredis client that never lets a request wait on a Redis that cannot answer: commands
 * are not queued while disconnected (they fail at once), each times out after `timeoutMs`,
 * nothing is retried, and the client reconnects for ever in the background, backing off to
 * one attempt a second.
 */
export function createRedisClient(
  url: string,
  opts: { timeoutMs: number; name: string; onError?: (err: Error) => void },
): Redis {
  const client = new Redis(url, {
    enableOfflineQueue: false,
    commandTimeout: opts.timeoutMs,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    retryStrategy: (times) => Math.min(50 * times, 1000),
    connectionName: opts.name,
    lazyConnect: false,
  });
  client.on('error', (err) => opts.onError?.(err));
  return client;
}

/** Resolves when `client` answers a PING within `timeoutMs`, waiting for a connection in progress. */
export async function pingWithin(client: Redis, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  if (client.status !== 'ready') {
    let onReady: (() => void) | undefined;
    try {
      await withTimeout(
        new Promise<void>((resolve) => {
          onReady = resolve;
          client.once('ready', onReady);
        }),
        timeoutMs,
      );
    } finally {
      if (onReady) client.off('ready', onReady);
    }
  }
  await withTimeout(client.ping(), Math.max(1, deadline - Date.now()));
}

/** Logs each distinct client error once in a row: ioredis reports every failed reconnect. */
export function dedupeErrors(report: (message: string) => void): (err: Error) => void {
  let last = '';
  return (err) => {
    if (err.message !== last) report(err.message);
    last = err.message;
  };
}
