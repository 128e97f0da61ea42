import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request a receiver got: its headers and the raw body (what a signature covers). */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** How the receiver answers the n-th request (0-based); may write anything to `res`. */
export type Behaviour = (res: ServerResponse, req: IncomingMessage, n: number) => void;

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `127.0.0.1:<port>` for allowPrivateHosts. */
  hostPort: string;
  received: Received[];
  /** Changes how later requests are answered. */
  answer(behaviour: Behaviour): void;
  /** Resolves once `n` requests have arrived (rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** Answers `status` with a small text body. */
export const status =
  (code: number, headers: Record<string, string> = {}): Behaviour =>
  (res) => {
    res.writeHead(code, { 'content-type': 'text/plain', ...headers });
    res.end(`answer ${code}`);
  };

/** Never answers (the connection stays open until the server closes). */
export const hang: Behaviour = () => {};

/** Closes the connection without an answer once the request has arrived. */
export const drop: Behaviour = (_res, req) => req.socket.destroy();

/**
 * A real webhook receiver on 127.0.0.1: records every request, answers as told (200 by
 * default). Hanging connections are cut when it closes.
 */
export async function startWebhookReceiver(initial: Behaviour = status(200)): Promise<WebhookReceiver> {
  let behaviour = initial;
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = received.length;
      received.push({
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      for (const w of waiters.splice(0)) w();
      behaviour(res, req, n);
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    received,
    answer(b) {
      behaviour = b;
    },
    async waitFor(n, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < n) {
        const left = deadline - Date.now();
        if (left <= 0)
          throw new Error(`receiver got ${received.length} requests, expected ${n} within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
      return received.slice(0, n);
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
