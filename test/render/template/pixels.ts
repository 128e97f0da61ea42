import sharp from 'sharp';

/** Decoded RGBA pixels. */
export interface Rgba {
  data: Buffer;
  width: number;
  height: number;
}

/** Decodes a PNG to raw RGBA. */
export async function decode(png: Buffer): Promise<Rgba> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** A rectangle in pixels, right and bottom exclusive. */
export interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * Counts pixels whose largest channel difference exceeds `threshold`, optionally only inside
 * `rect`, and returns a mask of them for diff pictures.
 */
export function diffPixels(
  a: Rgba,
  b: Rgba,
  threshold = 16,
  rect?: Rect,
): { count: number; total: number; mask: Uint8Array } {
  if (a.width !== b.width || a.height !== b.height)
    throw new Error(`size ${a.width}x${a.height} vs ${b.width}x${b.height}`);
  const r = rect ?? { x0: 0, y0: 0, x1: a.width, y1: a.height };
  const mask = new Uint8Array(a.width * a.height);
  // Most pixels of a card match exactly: one 32-bit compare skips them (the per-channel loop
  // was most of the golden tests' time).
  const words = (d: Buffer) =>
    d.byteOffset % 4 === 0 ? new Uint32Array(d.buffer, d.byteOffset, d.length >> 2) : undefined;
  const [wa, wb] = [words(a.data), words(b.data)];
  let count = 0;
  for (let y = r.y0; y < r.y1; y++) {
    for (let x = r.x0; x < r.x1; x++) {
      const p = y * a.width + x;
      if (wa && wb && wa[p] === wb[p]) continue;
      const i = p * 4;
      let d = 0;
      for (let c = 0; c < 4; c++) d = Math.max(d, Math.abs(a.data[i + c]! - b.data[i + c]!));
      if (d > threshold) {
        mask[p] = 1;
        count++;
      }
    }
  }
  return { count, total: (r.x1 - r.x0) * (r.y1 - r.y0), mask };
}

/** A picture of a diff: the expected image dimmed, differing pixels in red. */
export async function diffImage(expected: Rgba, mask: Uint8Array): Promise<Buffer> {
  const out = Buffer.alloc(expected.width * expected.height * 3);
  for (let p = 0; p < mask.length; p++) {
    const i = p * 4;
    const o = p * 3;
    if (mask[p]) {
      out[o] = 255;
      out[o + 1] = 0;
      out[o + 2] = 0;
    } else {
      const grey = Math.round((expected.data[i]! + expected.data[i + 1]! + expected.data[i + 2]!) / 3);
      out[o] = out[o + 1] = out[o + 2] = 128 + (grey >> 2);
    }
  }
  return sharp(out, { raw: { width: expected.width, height: expected.height, channels: 3 } })
    .png()
    .toBuffer();
}
