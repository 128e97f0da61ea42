import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import {
  checkStructure,
  STRUCTURE_DEFAULTS,
  type StructureLimits,
} from '../../../src/render/image/structure.js';
import { pngChunk, scanBombJpeg, textChunkBombPng } from '../../helpers/hostile-images.js';

const LIMITS: StructureLimits = { ...STRUCTURE_DEFAULTS, maxPixels: 25_000_000 };

/** The refusal `checkStructure` throws, with the reasons it reported. */
function refusal(bytes: Buffer, kind: 'jpeg' | 'png' | 'gif', what = 'imageUrl', limits = LIMITS) {
  const reasons: string[] = [];
  try {
    checkStructure(bytes, kind, what, limits, (r) => reasons.push(r));
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return { code: (err as AppError).code, message: (err as AppError).message, reasons };
  }
  return { code: 'none', message: '', reasons };
}

describe('progressive JPEG scan bomb (issue 26 §1: 4,114 scans took 14.7 s in sharp)', () => {
  it('is refused before decoding, naming the field and the scan count, in milliseconds', () => {
    // One DC scan and 4,113 AC scans: the 4,114.
    const bomb = scanBombJpeg(5000, 4113);
    expect(bomb.length).toBeLessThan(300_000);
    const start = performance.now();
    const got = refusal(bomb, 'jpeg');
    expect(performance.now() - start).toBeLessThan(200);
    expect(got).toEqual({
      code: 'unprocessable',
      message: 'imageUrl has 4114 JPEG scans; at most 32 are accepted',
      reasons: ['jpeg_scans'],
    });
    expect(refusal(bomb, 'jpeg', 'logo').message).toBe('logo has 4114 JPEG scans; at most 32 are accepted');
  });

  it('accepts the progressive JPEGs encoders make (sharp/mozjpeg, with and without scan optimisation)', async () => {
    const photo = sharp({
      create: { width: 640, height: 480, channels: 3, background: '#3366aa' },
    }).composite([
      {
        input: Buffer.alloc(200 * 200 * 3, 90),
        raw: { width: 200, height: 200, channels: 3 },
        top: 10,
        left: 10,
      },
    ]);
    for (const opts of [{ progressive: true }, { progressive: true, optimiseScans: true, mozjpeg: true }]) {
      const jpeg = await photo.clone().jpeg(opts).toBuffer();
      expect(refusal(jpeg, 'jpeg').code).toBe('none');
    }
    // Exactly at the bound passes, one more does not.
    expect(refusal(scanBombJpeg(64, 31), 'jpeg').code).toBe('none');
    expect(refusal(scanBombJpeg(64, 32), 'jpeg').message).toBe(
      'imageUrl has 33 JPEG scans; at most 32 are accepted',
    );
  });

  it('refuses a frame larger than the pixel limit from the SOF header', () => {
    expect(refusal(scanBombJpeg(6000, 1), 'jpeg')).toEqual({
      code: 'unprocessable',
      message: 'imageUrl has more than 25 megapixels',
      reasons: ['too_many_pixels'],
    });
  });
});

describe('PNG text-chunk bomb (issue 26 §1: 193 kB took a node from 480 MB to 1.8 GB)', () => {
  it('is refused before decoding, in milliseconds', () => {
    const bomb = textChunkBombPng(25);
    expect(bomb.length).toBeLessThan(250_000);
    const start = performance.now();
    const got = refusal(bomb, 'png', 'logo');
    expect(performance.now() - start).toBeLessThan(200);
    expect(got).toEqual({
      code: 'unprocessable',
      message: 'logo has more than 1 MB of PNG text and metadata chunks (tEXt, zTXt, iTXt, iCCP, eXIf)',
      reasons: ['png_metadata'],
    });
  });

  it('counts uncompressed tEXt and compressed iTXt too, and accepts ordinary metadata', async () => {
    const plain = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#ff0000' } })
      .png()
      .withMetadata()
      .toBuffer();
    expect(refusal(plain, 'png').code).toBe('none');
    // A small zTXt is fine.
    expect(refusal(textChunkBombPng(2, 100_000), 'png').code).toBe('none');
    const withChunk = (type: string, data: Buffer) =>
      Buffer.concat([plain.subarray(0, 33), pngChunk(type, data), plain.subarray(33)]);
    const bigText = Buffer.concat([Buffer.from('Comment\0'), Buffer.alloc(1_100_000, 0x41)]);
    expect(refusal(withChunk('tEXt', bigText), 'png').reasons).toEqual(['png_metadata']);
    const { deflateSync } = await import('node:zlib');
    const itxt = Buffer.concat([
      Buffer.from('XML:com.adobe.xmp\0\x01\x00\0\0'),
      deflateSync(Buffer.alloc(2_000_000)),
    ]);
    expect(refusal(withChunk('iTXt', itxt), 'png').reasons).toEqual(['png_metadata']);
  });
});

describe('GIF', () => {
  /** A GIF of `frames` frames of `side`² (no colour table, a minimal LZW stream each). */
  function gif(frames: number, side = 1): Buffer {
    const head = Buffer.from('GIF89a\x01\0\x01\0\0\0\0', 'latin1');
    const frame = Buffer.from([
      0x2c,
      0,
      0,
      0,
      0,
      side & 0xff,
      side >> 8,
      side & 0xff,
      side >> 8,
      0,
      2,
      2,
      0x4c,
      0x01,
      0,
    ]);
    return Buffer.concat([head, ...new Array(frames).fill(frame), Buffer.from([0x3b])]);
  }

  it('refuses more than 1,000 frames and a frame past the pixel limit', () => {
    expect(refusal(gif(1000), 'gif').code).toBe('none');
    expect(refusal(gif(1001), 'gif').message).toBe('imageUrl has more than 1000 GIF frames');
    expect(refusal(gif(1, 6000), 'gif').message).toBe('imageUrl has more than 25 megapixels');
  });
});
