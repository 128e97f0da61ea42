/**
 * The image formats both render routes can answer in, and the one encoder for the lossy ones.
 * PNG stays each engine's own (takumi's for cards, Chromium's re-encoded for screenshots); JPEG,
 * WebP and AVIF are always made by sharp from those pixels, so `quality=80` means the same on
 * both routes.
 */
import sharp from 'sharp';

import { DEFAULT_QUALITY, type ImageFormat, type LossyFormat } from './format-names.js';

export {
  DEFAULT_QUALITY,
  IMAGE_FORMATS,
  type ImageFormat,
  type LossyFormat,
} from './format-names.js';

/** What a request asked for; `quality` only with a lossy format (absent: that format's default). */
export interface ImageOutput {
  format: ImageFormat;
  quality?: number;
}

/** The `Content-Type` of each format. */
export const CONTENT_TYPES: Readonly<Record<ImageFormat, string>> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  avif: 'image/avif',
};

/**
 * The tallest (or widest) image each format can hold, measured with sharp 0.35 here: WebP stops
 * at 16,383, libheif's AVIF at 16,384, JPEG at 65,535. A full-page capture is cut to fit.
 */
export const MAX_SIDE: Readonly<Record<ImageFormat, number>> = {
  png: 65_535,
  jpeg: 65_535,
  webp: 16_383,
  avif: 16_384,
};

/**
 * AVIF's encoder effort. At sharp's default (4) a 1200×630 capture of a photo-heavy page took
 * 2.9 s here; at 2 about 0.4–0.7 s; at 1 about 0.13–0.17 s, with files within 3 % of effort 2's
 * and the same PSNR. Effort 0 was no faster on the photos and made a landing page's file 28 %
 * larger. WebP keeps sharp's default effort: 2 and 3 were no faster in the same runs.
 */
const AVIF_EFFORT = 1;

/** Whether `output` is the default (PNG without a quality): what a request without options gets. */
export function isDefaultOutput(output: ImageOutput | undefined): boolean {
  return output === undefined || output.format === 'png';
}

/** The quality a lossy output is encoded at. */
export function qualityOf(output: ImageOutput & { format: LossyFormat }): number {
  return output.quality ?? DEFAULT_QUALITY[output.format];
}

/**
 * Encodes an image sharp can read (a PNG from a renderer) as `output`'s lossy format. Screens
 * and cards are opaque, so the alpha channel is dropped: smaller files, and JPEG has none.
 */
export async function encodeLossy(
  input: Buffer,
  output: ImageOutput & { format: LossyFormat },
  /** Whole seconds after which sharp stops (JPEG and WebP; libheif's AVIF does not stop). */
  timeoutSeconds?: number,
): Promise<Buffer> {
  const quality = qualityOf(output);
  const image = sharp(input).removeAlpha();
  if (timeoutSeconds !== undefined) image.timeout({ seconds: timeoutSeconds });
  switch (output.format) {
    case 'jpeg':
      return image.jpeg({ quality, mozjpeg: false }).toBuffer();
    case 'webp':
      return image.webp({ quality }).toBuffer();
    case 'avif':
      return image.avif({ quality, effort: AVIF_EFFORT }).toBuffer();
  }
}

/** Narrows an output to its lossy form, or undefined for PNG. */
export function lossy(output: ImageOutput | undefined): (ImageOutput & { format: LossyFormat }) | undefined {
  if (!output || output.format === 'png') return undefined;
  return output as ImageOutput & { format: LossyFormat };
}
