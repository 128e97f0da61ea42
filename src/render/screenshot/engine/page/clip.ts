/** The `clip` option: an area of the viewport, or with fullPage of the whole page. */
import { AppError } from '../../../../errors.js';
import type { ClipArea } from '../../options.js';
import type { Lease } from '../browser/lease.js';
import { maxHeightCss, pixelBound } from './bounds.js';
import type { CaptureInput } from './capture.js';
import type { ShotArea } from './shoot.js';

/** The page's laid-out width in CSS pixels (a page may be wider than its viewport). */
export async function contentWidth(lease: Lease): Promise<number> {
  const metrics = await lease.cdp.send('Page.getLayoutMetrics');
  return Math.floor(metrics.cssContentSize.width);
}

/**
 * The `clip` area within `bounds` (the viewport, or with fullPage the whole page): a 400 when it
 * reaches outside, cut at the maximum height like a full page otherwise.
 */
export function clipArea(clip: ClipArea, bounds: ClipArea, outScale: number, input: CaptureInput): ShotArea {
  if (clip.x + clip.width > bounds.width || clip.y + clip.height > bounds.height) {
    const what = input.options?.fullPage ? 'the page' : 'the viewport';
    throw new AppError(
      'bad_request',
      `clip ${clip.x},${clip.y},${clip.width},${clip.height} reaches outside ${what} (${bounds.width}×${Math.ceil(bounds.height)} CSS pixels)`,
    );
  }
  const fits = maxHeightCss(input, clip.width, outScale);
  if (fits < 1) {
    throw new AppError(
      'unprocessable',
      `clip is ${clip.width} CSS pixels wide: at scale ${outScale} it is past the ${pixelBound(input)} output pixels a capture may hold on your plan`,
    );
  }
  return {
    x: bounds.x + clip.x,
    y: bounds.y + clip.y,
    width: clip.width,
    height: Math.min(clip.height, fits),
    outScale,
    beyond: input.options?.fullPage === true,
  };
}
