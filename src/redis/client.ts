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

/**
 * Resolves when `client` answers a PING within `timeoutMs`, waiting for a connection in progress.
 * A connection that is open but silent (its peer black-holed) is dropped on a time-out, so the
 * client reconnects: see dropIfSilent.
 */
export async function pingWithin(client: Redis, timeoutMs: number): Promise<void> {
  try {
    await pingOnce(client, timeoutMs);
  } catch (err) {
    dropIfSilent(client);
    throw err;
  }
}

/**
 * Destroys the socket of a client whose connection is established but did not answer in time,
 * so ioredis reconnects (with its retry back-off) and fails the commands still waiting.
 * Without this, replies lost in a black hole leave the client's queue of commands awaiting
 * replies out of step with the stream for ever: each later reply is matched to an earlier,
 * already timed-out command, every new command times out, and the node never leaves its
 * fallback. Issue 20: still degraded 90 s after the network passed again. `end()` (ioredis's
 * own disconnect) would wait for the silent peer's FIN, hence destroy().
 */
export function dropIfSilent(client: Redis): void {
  if (client.status === 'ready' || client.status === 'connect') client.stream?.destroy();
}

async function pingOnce(client: Redis, timeoutMs: number): Promise<void> {
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
