/** How many output pixels one capture may hold, by the plan of the account it is for. */
import type { ScreenshotRequest } from '../request.js';
import type { ShotOwner } from '../types.js';
import { MAX_OUTPUT_PIXELS } from '../viewports.js';

/**
 * The output pixels a capture for `owner` may hold: its plan's `maxPixels`, where `viewport`
 * is the request's viewport at the request's scale (a selector or a full page then gives no
 * more than the plain capture would), never more than the engine's own bound.
 */
export function outputPixelBound(
  req: Pick<ScreenshotRequest, 'viewport' | 'options'>,
  owner: ShotOwner | undefined,
): number {
  const shots = owner?.plan.screenshots;
  if (!shots) return MAX_OUTPUT_PIXELS;
  if (shots.maxPixels !== 'viewport') return Math.min(shots.maxPixels, MAX_OUTPUT_PIXELS);
  const scale = req.options?.scale ?? req.viewport.scale;
  return Math.min(
    Math.round(req.viewport.width * scale) * Math.round(req.viewport.height * scale),
    MAX_OUTPUT_PIXELS,
  );
}

/** Whether the bound can change the image: only a capture past the viewport (selector, fullPage). */
export function boundApplies(req: Pick<ScreenshotRequest, 'options'>): boolean {
  return req.options?.selector !== undefined || req.options?.fullPage === true;
}
