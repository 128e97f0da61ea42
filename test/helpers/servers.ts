import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';

/** Loopback-only fixture and canary servers for anything that fetches over HTTP in tests. */

export type ImageFormat = 'png' | 'jpeg' | 'webp' | 'gif' | 'avif';

export interface FixtureServer {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  port: number;
  /** `127.0.0.1:<port>`, the form `allowPrivateHosts` takes. */
  hostPort: string;
  /** The bytes served at `/image/<format>` (64×48, red left half, blue right half). */
  images: Record<ImageFormat, Buffer>;
  /** Requests seen per path (query excluded). */
  hits(path: string): number;
  /** Every request, in order. */
  requests: Array<{ path: string; headers: IncomingHttpHeaders }>;
  /** TCP connections accepted. */
  readonly connections: number;
  close(): Promise<void>;
}

export interface CanaryServer {
  url: string;
  port: number;
  /** TCP connections accepted; any non-zero value means a refusal leaked. */
  readonly connections: number;
  close(): Promise<void>;
}

const HUGE = 11 * 1024 * 1024;

/**
 * Starts the fixture server on 127.0.0.1:0. Routes: /image/<format>, /image/jpeg-rotated (EXIF
 * orientation 6), /image/gif-animated (red frame, then blue), /big (Content-Length over 10 MB),
 * /big-chunked (same, no Content-Length), /slow (headers, then a byte every 100 ms),
 * /slow-headers, /html-as-png, /bomb (a valid 10000×10000 PNG), /status/<code>,
 * /redirect?to=<url>[&cookie=1], /chain/<n> (n redirects, then the PNG), /loop, /slow-big (a
 * real 9 MB PNG, no Content-Length, streamed in 64 KiB chunks over about 3 s; any query).
 */
export async function startFixtureServer(): Promise<FixtureServer> {
  const images = await makeImages();
  const extra = {
    rotated: await sharp(await halves(40, 20))
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer(),
    animated: await animatedGif(),
    bomb: pngBomb(10_000, 10_000),
  };
  const counts = new Map<string, number>();
  const requests: FixtureServer['requests'] = [];
  let connections = 0;
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://fixture');
    counts.set(u.pathname, (counts.get(u.pathname) ?? 0) + 1);
    requests.push({ path: u.pathname, headers: req.headers });
    const send = (type: string, body: Buffer | string, status = 200) => {
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    const redirect = (to: string, headers: Record<string, string> = {}) => {
      res.writeHead(302, { location: to, ...headers });
      res.end();
    };
    const [, first, second] = u.pathname.split('/');
    if (first === 'image' && second && second in images)
      return send(`image/${second}`, images[second as ImageFormat]);
    if (u.pathname === '/image/jpeg-rotated') return send('image/jpeg', extra.rotated);
    if (u.pathname === '/image/gif-animated') return send('image/gif', extra.animated);
    if (u.pathname === '/bomb') return send('image/png', extra.bomb);
    if (u.pathname === '/html-as-png')
      return send('image/png', '<!doctype html><title>hi</title><p>not an image');
    if (first === 'status') return send('text/plain', 'status', Number(second));
    if (u.pathname === '/redirect') {
      return redirect(
        u.searchParams.get('to') ?? '/',
        u.searchParams.has('cookie') ? { 'set-cookie': 'sid=1' } : {},
      );
    }
    if (first === 'chain') {
      const n = Number(second);
      return n > 0 ? redirect(`/chain/${n - 1}`) : send('image/png', images.png);
    }
    if (u.pathname === '/loop') return redirect('/loop');
    if (u.pathname === '/big' || u.pathname === '/big-chunked') {
      res.writeHead(200, {
        'content-type': 'image/png',
        ...(u.pathname === '/big' ? { 'content-length': HUGE } : {}),
      });
      return streamZeros(res, HUGE);
    }
    if (u.pathname === '/slow') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(images.png.subarray(0, 8));
      const t = setInterval(() => res.write(Buffer.alloc(1)), 100);
      timers.add(t);
      res.on('close', () => clearInterval(t));
      return;
    }
    if (u.pathname === '/slow-big') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.on('error', () => {});
      void bigPng().then((png) => {
        let sent = 0;
        const t = setInterval(() => {
          if (res.destroyed) return clearInterval(t);
          res.write(png.subarray(sent, sent + 64 * 1024));
          sent += 64 * 1024;
          if (sent >= png.length) {
            clearInterval(t);
            res.end();
          }
        }, 20);
        timers.add(t);
        res.on('close', () => clearInterval(t));
      });
      return;
    }
    if (u.pathname === '/slow-headers') return; // never answers; closed with the server
    send('text/plain', 'not found', 404);
  });
  server.on('connection', () => {
    connections++;
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hostPort: `127.0.0.1:${port}`,
    images,
    hits: (path) => counts.get(path) ?? 0,
    requests,
    get connections() {
      return connections;
    },
    close: async () => {
      for (const t of timers) clearInterval(t);
      await stop(server);
    },
  };
}

/** Starts a server on 127.0.0.1:0 that only counts connections: it must never see one. */
export async function startCanaryServer(): Promise<CanaryServer> {
  let connections = 0;
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png' });
    res.end('canary');
  });
  server.on('connection', () => {
    connections++;
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get connections() {
      return connections;
    },
    close: () => stop(server),
  };
}

/** A TCP port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await stop(server);
  return port;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

function streamZeros(res: import('node:http').ServerResponse, total: number): void {
  const chunk = Buffer.alloc(64 * 1024);
  let sent = 0;
  const pump = () => {
    while (sent < total && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
}

/** Raw RGB, left half red and right half blue, so orientation and cropping are visible. */
let big: Promise<Buffer> | undefined;

/** A 1740×1740 PNG of noise, stored (9.1 MB): made once, on first use. */
function bigPng(): Promise<Buffer> {
  big ??= sharp(randomBytes(1740 * 1740 * 3), { raw: { width: 1740, height: 1740, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
  return big;
}

async function halves(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) raw.set(x < width / 2 ? [255, 0, 0] : [0, 0, 255], (y * width + x) * 3);
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

async function makeImages(): Promise<Record<ImageFormat, Buffer>> {
  const base = await halves(64, 48);
  return {
    png: base,
    jpeg: await sharp(base).jpeg().toBuffer(),
    webp: await sharp(base).webp({ lossless: true }).toBuffer(),
    gif: await sharp(base).gif().toBuffer(),
    avif: await sharp(base).avif({ quality: 60, effort: 0 }).toBuffer(),
  };
}

/** Two 32×32 frames, red then green: only the first may ever be drawn. */
async function animatedGif(): Promise<Buffer> {
  const raw = Buffer.alloc(32 * 64 * 3);
  for (let i = 0; i < 32 * 64; i++) raw.set(i < 32 * 32 ? [255, 0, 0] : [0, 255, 0], i * 3);
  return sharp(raw, { raw: { width: 32, height: 64, channels: 3, pageHeight: 32 } })
    .gif({ loop: 0 })
    .toBuffer();
}

/**
 * A valid, tiny (~12 kB) PNG that decodes to width×height 1-bit pixels: a decompression bomb
 * for the pixel limit, built by hand because encoding 10^8 pixels with sharp is slow.
 */
/** A valid PNG of `width`×`height` 1-bit pixels that compresses to a few kilobytes. */
export function pngBomb(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([1, 0, 0, 0, 0], 8); // bit depth 1, greyscale, deflate, no filter, no interlace
  const rows = Buffer.alloc((1 + Math.ceil(width / 8)) * height); // filter byte 0 + zero bits per row
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
