import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

/** A loopback server of photo-sized artwork for the soak's `imageUrl` cards. */
export interface ArtworkServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `127.0.0.1:<port>`, for CARDSHOT_ALLOW_PRIVATE_HOSTS. */
  hostPort: string;
  /** Paths it serves (any query string is ignored, so `?n=` makes a URL new to the server). */
  paths: readonly string[];
  /** A 240×240 PNG for the brand theme's logo. */
  logo: Buffer;
  close(): Promise<void>;
}

/**
 * Noise over a gradient, so the encoders cannot shrink it to nothing: the decode and resize
 * work (and libvips' buffers) are those of a real product photo, not of the tests' 64×48 tile.
 */
async function photo(width: number, height: number, format: 'jpeg' | 'png' | 'webp'): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const n = Math.floor(Math.random() * 48);
      raw[i] = Math.floor((255 * x) / width) ^ n;
      raw[i + 1] = Math.floor((255 * y) / height) ^ n;
      raw[i + 2] = 128 ^ n;
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    [format]()
    .toBuffer();
}

/** Starts the artwork server on 127.0.0.1:0. */
export async function startArtworkServer(): Promise<ArtworkServer> {
  const files = new Map<string, { type: string; body: Buffer }>([
    ['/photo.jpg', { type: 'image/jpeg', body: await photo(1600, 1000, 'jpeg') }],
    ['/square.png', { type: 'image/png', body: await photo(1000, 1000, 'png') }],
    ['/wide.webp', { type: 'image/webp', body: await photo(1200, 600, 'webp') }],
  ]);
  const server = createServer((req, res) => {
    const file = files.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': file.type, 'content-length': file.body.length }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    paths: [...files.keys()],
    logo: await photo(240, 240, 'png'),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
