import { createHash } from 'node:crypto';
import type { ScreenshotRequest } from './request.js';

/** Bump when a change to capturing makes old cached screenshots wrong. */
const CAPTURE_VERSION = 1;

/**
 * The cache key of a screenshot: the normalised URL plus every option that changes the pixels
 * (the viewport, whole, as a redefined custom preset must not serve the old size; `waitUntil`,
 * as a domcontentloaded capture may still show "loading…"), and the scope: the account id, or
 * '' for a cache shared by all accounts. Hex, safe as a file name. It is also the single-flight
 * key, so a capture is only ever shared by requests that would be answered the same PNG.
 */
export function screenshotCacheKey(
  req: Pick<ScreenshotRequest, 'url' | 'viewport' | 'waitUntil'>,
  scope = '',
): string {
  const { url, viewport, waitUntil } = req;
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
  ];
  return createHash('sha256').update(JSON.stringify(identity)).digest('hex');
}
