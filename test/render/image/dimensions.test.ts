import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { probeImage } from '../../../src/render/image/dimensions.js';

// The unfurl check reads an image's size from its first bytes: every format the networks draw,
// from real encoder output, including a JPEG whose frame header sits after 100 KB of metadata.

const solid = (w: number, h: number) =>
  sharp({ create: { width: w, height: h, channels: 3, background: { r: 10, g: 20, b: 30 } } });

describe('probeImage', () => {
  it.each([
    ['png', () => solid(1200, 630).png().toBuffer()],
    ['jpeg', () => solid(1200, 630).jpeg().toBuffer()],
    ['webp', () => solid(1200, 630).webp().toBuffer()],
    ['webp', () => solid(1200, 630).webp({ lossless: true }).toBuffer()],
    ['gif', () => solid(1200, 630).gif().toBuffer()],
  ] as const)('reads a %s of 1200×630', async (type, make) => {
    expect(probeImage(await make())).toEqual({ type, width: 1200, height: 630 });
  });

  it('reads a JPEG whose frame header follows large metadata, from its first 512 KB', async () => {
    const icc = await solid(300, 157)
      .withIccProfile('p3')
      .jpeg()
      .withExif({ IFD0: { ImageDescription: 'x'.repeat(60_000) } })
      .toBuffer();
    expect(probeImage(icc.subarray(0, 512 * 1024))).toEqual({ type: 'jpeg', width: 300, height: 157 });
  });

  it('names SVG and unknown bytes without a size', () => {
    expect(
      probeImage(Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>')),
    ).toEqual({
      type: 'svg',
      width: null,
      height: null,
    });
    expect(probeImage(Buffer.from('<!doctype html><html>'))).toEqual({
      type: null,
      width: null,
      height: null,
    });
    expect(probeImage(Buffer.from([0x89, 0x50]))).toEqual({ type: null, width: null, height: null });
  });
});
