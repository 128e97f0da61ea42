/**
 * Hostile images, generated rather than checked in (issue 26 §1): files that pass every size
 * and pixel check yet cost a decoder seconds of CPU or gigabytes of memory.
 */
import { deflateSync } from 'node:zlib';

/**
 * A valid greyscale progressive JPEG: one DC scan, then `acScans` identical AC scans (Ss=1
 * Se=63 Ah=0 Al=0) that are each one EOB run over every block. libjpeg redoes the whole
 * coefficient pass per scan, so its cost is pixels × scans for a file of a few hundred kB.
 */
export function scanBombJpeg(side: number, acScans: number): Buffer {
  const blocks = Math.ceil(side / 8) ** 2;
  const parts: Buffer[] = [Buffer.from([0xff, 0xd8])];
  const segment = (marker: number, body: number[]) =>
    parts.push(Buffer.from([0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 0xff, ...body]));
  segment(0xdb, [0x00, ...new Array(64).fill(1)]); // DQT 0: all ones
  segment(0xc2, [8, side >> 8, side & 0xff, side >> 8, side & 0xff, 1, 1, 0x11, 0]); // SOF2, 1 component
  // DC table 0: one 1-bit code "0" for category 0 (a zero difference).
  segment(0xc4, [0x00, 1, ...new Array(15).fill(0), 0x00]);
  // AC table 0: one 1-bit code "0" for EOB14 (0xE0): a run of 2^14 + 14 extra bits of blocks.
  segment(0xc4, [0x10, 1, ...new Array(15).fill(0), 0xe0]);
  const sos = (ss: number, se: number) => segment(0xda, [1, 1, 0x00, ss, se, 0x00]);
  sos(0, 0);
  parts.push(entropy(new Array(blocks).fill([0, 1])));
  // EOB runs of at most 32767 blocks cover every block of the band.
  const runs: Array<[number, number]> = [];
  for (let left = blocks; left > 0; left -= Math.min(left, 32767)) {
    const run = Math.min(left, 32767);
    runs.push([0, 1], [run >= 16384 ? run - 16384 : 0, 14]);
  }
  const acScan = entropy(runs);
  for (let i = 0; i < acScans; i++) {
    sos(1, 63);
    parts.push(acScan);
  }
  parts.push(Buffer.from([0xff, 0xd9]));
  return Buffer.concat(parts);
}

/** Bits (value, length) packed MSB first, padded with ones, 0xFF stuffed with 0x00. */
function entropy(codes: Array<[number, number]>): Buffer {
  const out: number[] = [];
  let acc = 0;
  let n = 0;
  const flush = () => {
    out.push(acc);
    if (acc === 0xff) out.push(0);
    acc = 0;
    n = 0;
  };
  for (const [value, length] of codes) {
    for (let b = length - 1; b >= 0; b--) {
      acc = (acc << 1) | ((value >> b) & 1);
      if (++n === 8) flush();
    }
  }
  if (n > 0) {
    acc = (acc << (8 - n)) | ((1 << (8 - n)) - 1);
    flush();
  }
  return Buffer.from(out);
}

/**
 * A 64×64 PNG with `chunks` zTXt chunks, each inflating to `inflatedBytes` of zeros (~8 KB
 * compressed per 8 MB): libpng inflates them while reading the header.
 */
export function textChunkBombPng(chunks: number, inflatedBytes = 7_900_000): Buffer {
  const side = 64;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  const text = Buffer.concat([
    Buffer.from('Comment\0\0', 'latin1'),
    deflateSync(Buffer.alloc(inflatedBytes), { level: 9 }),
  ]);
  const rows = Buffer.alloc((side + 1) * side, 0x80);
  for (let y = 0; y < side; y++) rows[y * (side + 1)] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    ...new Array(chunks).fill(pngChunk('zTXt', text)),
    pngChunk('IDAT', deflateSync(rows)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** One PNG chunk: length, type, data, CRC-32 of type and data. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(b: Buffer): number {
  let c = 0xffffffff;
  for (const byte of b) c = (CRC_TABLE[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A loopback server of hostile images, generated once per server. */
export interface HostileImageServer {
  url: string;
  hostPort: string;
  /** Bytes `/big-logo` had written when its client went away (or all of them). */
  bigLogo(): { written: number; finished: boolean };
  close(): Promise<void>;
}

/**
 * Serves `/scan-bomb.jpg` (5000×5000, the 4,114 scans: within imageUrl's 25 MP),
 * `/logo-scan-bomb.jpg` (4000×4000, within a logo's 16 MP), `/text-bomb.png` (25 zTXt of
 * 7.9 MB each) and `/big-logo` (3 MB in 64 kB chunks, no Content-Length, 2 ms apart).
 */
export async function startHostileImageServer(): Promise<HostileImageServer> {
  const { createServer } = await import('node:http');
  const files: Record<string, Buffer> = {
    '/scan-bomb.jpg': scanBombJpeg(5000, 4113),
    '/logo-scan-bomb.jpg': scanBombJpeg(4000, 4113),
    '/text-bomb.png': textChunkBombPng(25),
  };
  const big = { written: 0, finished: false };
  const server = createServer((req, res) => {
    const file = files[req.url ?? ''];
    if (file) {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': file.length });
      res.end(file);
      return;
    }
    if (req.url !== '/big-logo') {
      res.writeHead(404).end();
      return;
    }
    big.written = 0;
    big.finished = false;
    res.writeHead(200, { 'content-type': 'image/png' });
    const chunk = Buffer.alloc(64 * 1024, 7);
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      if (big.written >= 3 * 1024 * 1024) {
        clearInterval(timer);
        big.finished = true;
        res.end();
        return;
      }
      big.written += chunk.length;
      res.write(chunk);
    }, 2);
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    bigLogo: () => ({ ...big }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
