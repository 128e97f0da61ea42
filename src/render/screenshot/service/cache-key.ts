import { createHash } from 'node:crypto';
import { imageIdentity } from '../options.js';
import type { ScreenshotRequest } from '../request.js';

/** Bump when a change to capturing makes old cached screenshots wrong. */
const CAPTURE_VERSION = 1;

/**
 * The cache key of a screenshot: the normalised URL plus every option that changes the pixels
 * (the viewport, whole, as a redefined custom preset must not serve the old size; `waitUntil`,
 * as a domcontentloaded capture may still show "loading…"), and the scope: the account id, or
 * '' for a cache shared by all accounts. Hex, safe as a file name. It is also the single-flight
 * key, so a capture is only ever shared by requests that would be answered the same PNG.
 * The options that change the image come last, normalised, and only when there are any: a
 * request without options keeps the key it had before options existed (its cached entries stay
 * valid). `ttl` and `fresh` are not in it: they decide how an entry is read, not what it holds.
 * `maxPixels`, the plan's output bound, is given for the captures it can cut (selector, fullPage).
 */
export function screenshotCacheKey(
  req: Pick<ScreenshotRequest, 'url' | 'viewport' | 'waitUntil' | 'options' | 'stayOn'>,
  scope = '',
  maxPixels?: number,
  /** For a PDF: the most pages it may hold (CARDSHOT_PDF_MAX_PAGES). */
  maxPdfPages?: number,
  /** For a capture with credentials: their HMAC under the server secret (never them in clear). */
  credentialsMac?: string,
): string {
  const { url, viewport, waitUntil } = req;
  const options = imageIdentity(req.options);
  const identity = [
    'cardshot-screenshot',
    CAPTURE_VERSION,
    url,
    viewport.name,
    viewport.width,
    viewport.height,
    viewport.scale,
    viewport.mobile,
    waitUntil,
    scope,
    ...(options ? [options] : []),
    // Only for a selector or a full page, whose height the plan's bound may cut.
    ...(maxPixels !== undefined ? [{ maxPixels }] : []),
    ...(maxPdfPages !== undefined ? [{ maxPdfPages }] : []),
    ...(credentialsMac !== undefined ? [{ credentialsMac }] : []),
    // A page kept on some origins may be refused where the same page without them is captured.
    ...(req.stayOn ? [{ stayOn: [...req.stayOn].sort() }] : []),
  ];
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex');
}
