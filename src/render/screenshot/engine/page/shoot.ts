/** The pixels: the visible viewport over CDP, then a PNG re-encoded when that is smaller. */
import sharp from 'sharp';
import { encodeLossy, type ImageOutput, lossy } from '../../../format.js';
import type { Lease } from '../browser/lease.js';

/**
 * The visible viewport via CDP with optimizeForSpeed: Chromium's default PNG encoder spends most
 * of a capture compressing (~100 ms of a ~150 ms capture, measured here), so it sends a fast PNG that sharp
 * re-encodes off the event loop. The clip is the visual viewport scaled by the device scale
 * factor, which is what makes a mobile capture 1170×2532 rather than 390×844.
 */
export async function screenshotViewport(lease: Lease): Promise<Buffer> {
  const metrics = await lease.cdp.send('Page.getLayoutMetrics');
  const vv = metrics.cssVisualViewport;
  if (vv.scale < 1) await emulateMetrics(lease);
  const shot = await lease.cdp.send('Page.captureScreenshot', {
    format: 'png',
    optimizeForSpeed: true,
    clip: {
      x: vv.pageX,
      y: vv.pageY,
      width: vv.clientWidth,
      height: vv.clientHeight,
      scale: vv.scale * lease.viewport.scale,
    },
  });
  return Buffer.from(shot.data, 'base64');
}

/**
 * A page zoomed out on a phone (no meta viewport: laid out 980 px wide, shown at 390/980) is
 * captured whole only by a session that has the device emulation itself: this CDP session is
 * not Playwright's, so Chromium clipped its capture to the 390 px view before zooming and drew
 * the left 40 % of the page. Capturing "beyond the viewport" instead laid a fluid page out again
 * at 390 px. Giving this session the very metrics the context already has changes no layout;
 * it is done only for zoomed-out pages, the rare case. With `scale` (the `scale` option) it sets
 * this page's device scale factor instead, before it loads: the spare context made for the
 * viewport stays usable for any scale.
 */
export async function emulateMetrics(lease: Lease, scale = lease.viewport.scale): Promise<void> {
  const v = lease.viewport;
  const landscape = v.width > v.height;
  await lease.cdp.send('Emulation.setDeviceMetricsOverride', {
    mobile: v.mobile,
    width: v.width,
    height: v.height,
    screenWidth: v.width,
    screenHeight: v.height,
    deviceScaleFactor: scale,
    // As Playwright sets it for the context, so the page sees no change.
    screenOrientation:
      v.mobile && !landscape
        ? { angle: 0, type: 'portraitPrimary' }
        : { angle: v.mobile ? 90 : 0, type: 'landscapePrimary' },
  });
}

/** Above this many PNG bytes per pixel the page is photographic and re-encoding only costs time. */
const REENCODE_BELOW_BYTES_PER_PIXEL = 0.25;

/**
 * Chromium's fast PNG is kept for photographic pages (re-encoding a 530 KB capture took 30 ms and
 * came out larger unless adaptive filtering, 50 ms, was on). Flat pages, the common case for
 * sites and cards, re-encode in ~6–12 ms to a third or less of the size, and the smaller wins.
 */
export async function encode(raw: Buffer, lease: Lease): Promise<Buffer> {
  const width = Math.round(lease.viewport.width * lease.viewport.scale);
  const height = Math.round(lease.viewport.height * lease.viewport.scale);
  const size = { width: raw.readUInt32BE(16), height: raw.readUInt32BE(20) };
  // Rounding in the visual viewport can give a pixel too many or too few: the size is a promise.
  if (size.width !== width || size.height !== height) {
    return sharp(raw).resize(width, height, { fit: 'fill' }).png({ compressionLevel: 6 }).toBuffer();
  }
  if (raw.length / (width * height) >= REENCODE_BELOW_BYTES_PER_PIXEL) return raw;
  const small = await sharp(raw)
    .removeAlpha()
    .png({ compressionLevel: 6, adaptiveFiltering: false })
    .toBuffer();
  return small.length < raw.length ? small : raw;
}

/** A part of the page to capture: document CSS pixels, and output pixels per CSS pixel. */
export interface ShotArea {
  x: number;
  y: number;
  width: number;
  height: number;
  /** Output pixels per CSS pixel: the visual viewport's zoom times the device scale factor. */
  outScale: number;
  /** The area reaches past the visible viewport (a full page, a tall element). */
  beyond: boolean;
}

/**
 * `area` over CDP. `sessionScale` is the device scale factor this CDP session emulates, if it
 * emulates one: Chromium then multiplies the clip's scale by it (measured: 1200 CSS pixels at
 * clip scale 2 under a session scale of 2 came out 4800 wide), so the clip asks for the rest.
 */
export async function screenshotArea(lease: Lease, area: ShotArea, sessionScale?: number): Promise<Buffer> {
  const shot = await lease.cdp.send('Page.captureScreenshot', {
    format: 'png',
    optimizeForSpeed: true,
    captureBeyondViewport: area.beyond,
    clip: {
      x: area.x,
      y: area.y,
      width: area.width,
      height: area.height,
      scale: sessionScale ? area.outScale / sessionScale : area.outScale,
    },
  });
  return Buffer.from(shot.data, 'base64');
}

/**
 * A capture made with options, encoded: exactly `size` pixels (a pixel of rounding is resized
 * away, as for the plain capture), then PNG by the same policy as `encode`, or the lossy format.
 */
export async function encodeArea(
  raw: Buffer,
  size: { width: number; height: number },
  output: ImageOutput | undefined,
  /** `Date.now()` after which sharp stops encoding (the request's deadline). */
  deadline = Number.POSITIVE_INFINITY,
): Promise<Buffer> {
  // sharp counts whole seconds, and 0 means never: at least one.
  const seconds = () =>
    Number.isFinite(deadline)
      ? { seconds: Math.max(1, Math.ceil((deadline - Date.now()) / 1000)) }
      : { seconds: 0 };
  const got = { width: raw.readUInt32BE(16), height: raw.readUInt32BE(20) };
  const exact =
    got.width === size.width && got.height === size.height
      ? raw
      : await sharp(raw)
          .timeout(seconds())
          .resize(size.width, size.height, { fit: 'fill' })
          .png({ compressionLevel: 1 })
          .toBuffer();
  const lossyOutput = lossy(output);
  if (lossyOutput) return encodeLossy(exact, lossyOutput, seconds().seconds || undefined);
  if (exact.length / (size.width * size.height) >= REENCODE_BELOW_BYTES_PER_PIXEL) return exact;
  const small = await sharp(exact)
    .timeout(seconds())
    .removeAlpha()
    .png({ compressionLevel: 6, adaptiveFiltering: false })
    .toBuffer();
  return small.length < exact.length ? small : exact;
}
