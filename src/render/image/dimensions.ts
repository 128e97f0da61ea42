/**
 * An image's type and size from its first bytes, in JavaScript and without decoding: what the
 * unfurl check needs to say "too small" or "too large" after downloading only the head of an
 * image. The type comes from the magic number (artwork-image.ts `sniff`), never from the
 * Content-Type header; the size from the header each format keeps near its start (a JPEG's SOF
 * segment may follow large EXIF data, so callers read a few hundred kilobytes).
 */
import { sniff } from './artwork-image.js';

/** A sniffed image: its type, and its size when the bytes held it. */
export interface ImageProbe {
  type: 'png' | 'jpeg' | 'webp' | 'gif' | 'avif' | 'svg' | null;
  width: number | null;
  height: number | null;
}

/** The type and pixel size of the image whose first bytes are `b`. */
export function probeImage(b: Buffer): ImageProbe {
  const type = sniff(b) ?? (looksLikeSvg(b) ? 'svg' : null);
  const size =
    type === 'png'
      ? pngSize(b)
      : type === 'gif'
        ? gifSize(b)
        : type === 'jpeg'
          ? jpegSize(b)
          : type === 'webp'
            ? webpSize(b)
            : null;
  return { type, width: size?.[0] ?? null, height: size?.[1] ?? null };
}

type Size = [number, number] | null;

function pngSize(b: Buffer): Size {
  // Signature (8), IHDR length (4) and type (4), then width and height.
  if (b.length < 24 || b.toString('latin1', 12, 16) !== 'IHDR') return null;
  return [b.readUInt32BE(16), b.readUInt32BE(20)];
}

function gifSize(b: Buffer): Size {
  return b.length < 10 ? null : [b.readUInt16LE(6), b.readUInt16LE(8)];
}

/** SOF markers that carry a frame size (C0–CF but DHT C4, JPG C8 and DAC CC). */
const isSof = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;

function jpegSize(b: Buffer): Size {
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1] as number;
    if (marker === 0xff) {
      i++;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    if (isSof(marker)) return i + 9 <= b.length ? [b.readUInt16BE(i + 7), b.readUInt16BE(i + 5)] : null;
    if (marker === 0xda || marker === 0xd9) return null; // scan data before any frame header
    i += 2 + b.readUInt16BE(i + 2);
  }
  return null;
}

function webpSize(b: Buffer): Size {
  if (b.length < 30) return null;
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return [1 + b.readUIntLE(24, 3), 1 + b.readUIntLE(27, 3)];
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21);
    return [1 + (bits & 0x3fff), 1 + ((bits >> 14) & 0x3fff)];
  }
  if (chunk === 'VP8 ') return [b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff];
  return null;
}

function looksLikeSvg(b: Buffer): boolean {
  const start = b.toString('utf8', 0, Math.min(b.length, 1024)).trimStart().toLowerCase();
  return start.startsWith('<svg') || (start.startsWith('<?xml') && start.includes('<svg'));
}
