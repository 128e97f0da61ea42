/** How large a capture may be: the plan's pixel bound, the engine's, and each format's own. */
import { type ImageFormat, MAX_SIDE } from '../../../format.js';
import { MAX_OUTPUT_PIXELS } from '../../viewports.js';
import type { CaptureInput } from './capture.js';

/**
 * AVIF's encoder cannot be stopped once it has started (sharp's timeout does not reach
 * libheif): 21.6 megapixels took 7.3 s here with a 2 s timeout set, and a tall page's 40
 * megapixels 82 s. An AVIF capture is cut at this many pixels so its encoding ends in time.
 */
const MAX_AVIF_PIXELS = 8_000_000;

/** The output pixels this capture may hold: the plan's bound, the engine's, AVIF's. */
export function pixelBound(input: CaptureInput): number {
  const format = input.options?.output?.format ?? 'png';
  return Math.min(
    input.maxPixels ?? MAX_OUTPUT_PIXELS,
    MAX_OUTPUT_PIXELS,
    format === 'avif' ? MAX_AVIF_PIXELS : Infinity,
  );
}

/**
 * The tallest capture `widthCss` wide, in CSS pixels: the configured height in output pixels,
 * the format's own limit (WebP stops at 16,383), and the pixel bound (the plan's, at most 40
 * megapixels). 0 when not even one row fits.
 */
export function maxHeightCss(input: CaptureInput, widthCss: number, outScale: number): number {
  const format = input.options?.output?.format ?? 'png';
  const byPixels = Math.floor(pixelBound(input) / Math.max(1, Math.round(widthCss * outScale)));
  const maxOut = Math.min(input.maxHeight, MAX_SIDE[format as ImageFormat], byPixels);
  return Math.floor(maxOut / outScale);
}
