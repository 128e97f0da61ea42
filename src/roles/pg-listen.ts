/**
 * A LISTEN connection that comes back: node-postgres gives one client per LISTEN, and a client
 * whose connection drops (PostgreSQL restarted, a network cut) is done for. This one reconnects
 * with a capped back-off and says so, since NOTIFYs sent while it was away are lost and the
 * caller must look for what it missed.
 */
import pg from 'pg';

export interface Listener {
  /** The backend pid of the current connection (undefined while reconnecting). */
  pid(): number | undefined;
  close(): Promise<void>;
}

export async function listen(opts: {
  connectionString: string;
  channels: readonly string[];
  /** application_name of the session (workers are counted by it). */
  applicationName: string;
  onNotify(channel: string, payload: string): void;
  /** Connected again after a drop: notifications meanwhile were lost. */
  onReconnect(): void;
  onError(err: unknown): void;
}): Promise<Listener> {
  let client: pg.Client | undefined;
  let pid: number | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const c = new pg.Client({
      connectionString: opts.connectionString,
      application_name: opts.applicationName,
      connectionTimeoutMillis: 5000,
      keepAlive: true,
    });
    c.on('error', (err) => {
      opts.onError(err);
      drop(c);
    });
    c.on('end', () => drop(c));
    c.on('notification', (n) => opts.onNotify(n.channel, n.payload ?? ''));
    await c.connect();
    try {
      for (const ch of opts.channels) await c.query(`LISTEN "${ch}"`);
      const { rows } = await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      pid = rows[0]!.pid;
    } catch (err) {
      await c.end().catch(() => {});
      throw err;
    }
    client = c;
  };

  const drop = (c: pg.Client) => {
    if (client !== c) return;
    client = undefined;
    pid = undefined;
    c.end().catch(() => {});
    if (!closed) schedule(250);
  };

  const schedule = (ms: number) => {
    clearTimeout(retry);
    retry = setTimeout(() => {
      connect().then(
        () => opts.onReconnect(),
        (err) => {
          opts.onError(err);
          if (!closed) schedule(Math.min(ms * 2, 5000));
        },
      );
    }, ms);
    retry.unref();
  };

  await connect();
  return {
    pid: () => pid,
    async close() {
      closed = true;
      clearTimeout(retry);
      const c = client;
      client = undefined;
      await c?.end().catch(() => {});
    },
  };
}
