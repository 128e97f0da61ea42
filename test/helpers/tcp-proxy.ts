import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real server, so a test can make that server look
 * stopped (connections cut, port closed) or paused (connections open, no bytes moving)
 * without touching the server other test runs share.
 */
export interface TcpProxy {
  port: number;
  url(scheme: string, path?: string): string;
  /** Holds every byte in both directions until resume(). Both are idempotent. */
  pause(): void;
  resume(): void;
  /**
   * Swallows every byte in both directions until resume(), like a network path that drops
   * packets: what is sent meanwhile is lost, not delivered late (unlike pause()).
   */
  blackHole(): void;
  /** Cuts every connection and stops listening (connections are then refused). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a proxy to `targetHost:targetPort` on a free loopback port. */
export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let paused = false;
  let dropping = false;
  const discard = () => {};
  let server: Server | undefined;
  let port = 0;

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        const upstream = connect(targetPort, targetHost);
        const pair: [Socket, Socket] = [client, upstream];
        pairs.add(pair);
        // A connection made while paused is piped by resume(), like the others: piping it
        // here as well would send every byte twice after resume().
        if (paused) {
          client.pause();
          upstream.pause();
        } else {
          client.pipe(upstream);
          upstream.pipe(client);
        }
        const end = () => {
          client.destroy();
          upstream.destroy();
          pairs.delete(pair);
        };
        client.on('error', end).on('close', end);
        upstream.on('error', end).on('close', end);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as { port: number }).port;
        resolve();
      });
    });

  const stop = async () => {
    for (const [a, b] of pairs) {
      a.destroy();
      b.destroy();
    }
    pairs.clear();
    if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
  };

  const pause = () => {
    if (paused) return;
    paused = true;
    // unpipe + pause: piped streams would otherwise resume each other on 'drain'.
    for (const [a, b] of pairs) {
      a.unpipe(b);
      b.unpipe(a);
      a.pause();
      b.pause();
    }
  };

  await listen();
  return {
    get port() {
      return port;
    },
    url: (scheme, path = '') => `${scheme}://127.0.0.1:${port}${path}`,
    pause,
    resume() {
      // Piping twice would write every later chunk twice (a corrupt protocol stream).
      if (!paused) return;
      paused = false;
      if (dropping) {
        dropping = false;
        for (const [a, b] of pairs) {
          a.off('data', discard);
          b.off('data', discard);
        }
      }
      for (const [a, b] of pairs) {
        a.pipe(b);
        b.pipe(a);
        a.resume();
        b.resume();
      }
    },
    blackHole() {
      if (dropping) return;
      pause();
      dropping = true;
      // Reading and discarding: the peers see their writes accepted and never answered.
      for (const [a, b] of pairs) {
        a.on('data', discard).resume();
        b.on('data', discard).resume();
      }
    },
    stop,
    start: listen,
    close: stop,
  };
}
