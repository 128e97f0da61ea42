/**
 * A look at an image's structure in JavaScript, before any decoder sees its bytes (issue 26 §1).
 * Pixels and bytes were bounded, the work of decoding was not: a 230 kB progressive JPEG of
 * 4,114 scans took 14.7 s in sharp (the cost is pixels × scans), and a 193 kB PNG of 25 zTXt
 * chunks made libpng inflate 200 MB of text while reading the header. Walking markers and
 * chunks costs microseconds per kilobyte; what no check here foresees is left to the decode
 * pool's CPU and memory limits (decode-pool.ts).
 */
import { inflateSync } from 'node:zlib';
import { AppError } from '../../errors.js';
import { formatMegabytes, formatMegapixels } from './artwork-format.js';

/** What a file may contain before it is decoded. */
export interface StructureLimits {
  maxPixels: number;
  /** SOS segments of a JPEG: a normal progressive file has about 10 (mozjpeg's up to ~20). */
  maxJpegScans: number;
  /** Bytes the text and metadata chunks of a PNG (tEXt, zTXt, iTXt, iCCP, eXIf) hold once inflated. */
  maxPngMetadataBytes: number;
  /** Frames of a GIF: libnsgif walks them all to count them, even for page 0. */
  maxGifFrames: number;
}

/** The defaults: 32 scans, 1 MiB of PNG metadata, 1,000 GIF frames. */
export const STRUCTURE_DEFAULTS: Omit<StructureLimits, 'maxPixels'> = {
  maxJpegScans: 32,
  maxPngMetadataBytes: 1024 * 1024,
  maxGifFrames: 1000,
};

type Refuse = (reason: string, message: string, detail?: string) => never;

/**
 * Throws a 422 AppError naming `what` (imageUrl, logo, logoUrl) when the structure of
 * `bytes` would make decoding cost more than its size suggests; a truncated or odd structure
 * is left to the decoder, which says it cannot decode it.
 */
export function checkStructure(
  bytes: Buffer,
  kind: 'png' | 'jpeg' | 'webp' | 'gif' | 'avif',
  what: string,
  limits: StructureLimits,
  failed: (reason: string) => void = () => {},
): void {
  const refuse: Refuse = (reason, message, detail) => {
    failed(reason);
    throw new AppError('unprocessable', `${what} ${message}`, {
      detail: detail ?? `${kind} structure: ${reason}`,
    });
  };
  const pixels = (w: number, h: number) => {
    if (w * h > limits.maxPixels) {
      refuse(
        'too_many_pixels',
        `has more than ${formatMegapixels(limits.maxPixels)} megapixels`,
        `${kind} ${w}x${h}`,
      );
    }
  };
  if (kind === 'jpeg') checkJpeg(bytes, limits, pixels, refuse);
  else if (kind === 'png') checkPng(bytes, limits, pixels, refuse);
  else if (kind === 'gif') checkGif(bytes, limits, pixels, refuse);
}

/** SOF markers that carry a frame size (C0–CF but DHT C4, JPG C8 and DAC CC). */
const isSof = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;

function checkJpeg(
  b: Buffer,
  limits: StructureLimits,
  pixels: (w: number, h: number) => void,
  refuse: Refuse,
) {
  let scans = 0;
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return;
    const marker = b[i + 1] as number;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0xd9) break; // EOI
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    const length = b.readUInt16BE(i + 2);
    if (isSof(marker) && i + 9 <= b.length) pixels(b.readUInt16BE(i + 7), b.readUInt16BE(i + 5));
    i += 2 + length;
    if (marker !== 0xda) continue;
    scans++;
    if (scans > limits.maxJpegScans) {
      // Counted to the end (cheap) so the message and the log say what the file holds.
      const total = scans + countRemainingScans(b, i);
      refuse('jpeg_scans', `has ${total} JPEG scans; at most ${limits.maxJpegScans} are accepted`);
    }
    i = skipEntropy(b, i);
  }
}

/** The offset of the first marker after entropy-coded data (0xFF not followed by 0x00 or RSTn). */
function skipEntropy(b: Buffer, from: number): number {
  let i = from;
  for (;;) {
    i = b.indexOf(0xff, i);
    if (i < 0 || i + 1 >= b.length) return b.length;
    const next = b[i + 1] as number;
    if (next === 0x00 || next === 0xff || (next >= 0xd0 && next <= 0xd7)) i += next === 0xff ? 1 : 2;
    else return i;
  }
}

function countRemainingScans(b: Buffer, from: number): number {
  let n = 0;
  let i = skipEntropy(b, from);
  while (i + 4 <= b.length && b[i + 1] !== 0xd9) {
    const marker = b[i + 1] as number;
    i += 2 + b.readUInt16BE(i + 2);
    if (marker === 0xda) {
      n++;
      i = skipEntropy(b, i);
    }
  }
  return n;
}

/** Chunks libpng reads as text or metadata (and libvips keeps): inflated ones are the bomb. */
const METADATA_CHUNKS = new Set(['tEXt', 'zTXt', 'iTXt', 'iCCP', 'eXIf']);

function checkPng(
  b: Buffer,
  limits: StructureLimits,
  pixels: (w: number, h: number) => void,
  refuse: Refuse,
) {
  let metadata = 0;
  const tooMuch = () =>
    refuse(
      'png_metadata',
      `has more than ${formatMegabytes(limits.maxPngMetadataBytes)} of PNG text and metadata chunks (tEXt, zTXt, iTXt, iCCP, eXIf)`,
    );
  for (let i = 8; i + 12 <= b.length; ) {
    const length = b.readUInt32BE(i);
    const type = b.toString('latin1', i + 4, i + 8);
    const data = b.subarray(i + 8, Math.min(b.length, i + 8 + length));
    if (type === 'IHDR' && data.length >= 8) pixels(data.readUInt32BE(0), data.readUInt32BE(4));
    if (type === 'IDAT' || type === 'IEND') return; // libpng reads metadata after IDAT only at the end
    if (METADATA_CHUNKS.has(type)) {
      metadata += inflatedSize(type, data, limits.maxPngMetadataBytes - metadata + 1);
      if (metadata > limits.maxPngMetadataBytes) tooMuch();
    }
    i += 12 + length;
  }
}

/** The bytes a metadata chunk holds once inflated, counted up to `cap` (inflating stops there). */
function inflatedSize(type: string, data: Buffer, cap: number): number {
  const keywordEnd = data.indexOf(0);
  let compressed: Buffer | undefined;
  if ((type === 'zTXt' || type === 'iCCP') && keywordEnd >= 0) compressed = data.subarray(keywordEnd + 2);
  if (type === 'iTXt' && keywordEnd >= 0 && data[keywordEnd + 1] === 1) {
    // keyword\0 flag method language\0 translated\0 text
    const lang = data.indexOf(0, keywordEnd + 3);
    const translated = lang < 0 ? -1 : data.indexOf(0, lang + 1);
    if (translated >= 0) compressed = data.subarray(translated + 1);
  }
  if (!compressed) return data.length;
  try {
    return data.length + inflateSync(compressed, { maxOutputLength: Math.max(1, cap) }).length;
  } catch (err) {
    // Past the cap: counts as more than allowed. A corrupt stream is libpng's to refuse.
    return (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? cap + data.length : data.length;
  }
}

function checkGif(
  b: Buffer,
  limits: StructureLimits,
  pixels: (w: number, h: number) => void,
  refuse: Refuse,
) {
  // The logical screen is left to the decoder's header read (a garbled one is "could not be
  // decoded"); frames are checked as the walk meets them.
  if (b.length < 13) return;
  const flags = b[10] as number;
  let i = 13 + (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0);
  let frames = 0;
  while (i < b.length) {
    const block = b[i];
    if (block === 0x3b) return; // trailer
    if (block === 0x21) {
      i = skipSubBlocks(b, i + 2); // extension: label, then sub-blocks
    } else if (block === 0x2c) {
      if (i + 10 > b.length) return;
      pixels(b.readUInt16LE(i + 5), b.readUInt16LE(i + 7));
      if (++frames > limits.maxGifFrames) {
        refuse('gif_frames', `has more than ${limits.maxGifFrames} GIF frames`);
      }
      const local = b[i + 9] as number;
      i += 10 + (local & 0x80 ? 3 * 2 ** ((local & 7) + 1) : 0);
      i = skipSubBlocks(b, i + 1); // LZW minimum code size, then sub-blocks
    } else return;
  }
}

function skipSubBlocks(b: Buffer, from: number): number {
  let i = from;
  while (i < b.length && b[i] !== 0) i += 1 + (b[i] as number);
  return i + 1;
}
