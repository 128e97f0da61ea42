import type { FastifyInstance } from 'fastify';
import type { AuthContext } from '../../auth/authenticate.js';
import { FRESH_SIGNED_MAX_SECONDS, FRESH_SIGNED_REFUSED } from '../../auth/signing.js';
import { AppError } from '../../errors.js';
import type { RenderCommand } from '../../render/command.js';
import { parseScreenshotRequest, type ScreenshotRequest } from '../../render/screenshot/request.js';
import type { ShotResult } from '../../render/screenshot/types.js';
import type { Viewport } from '../../render/screenshot/viewports.js';
import { pngCacheControl } from '../cache-control.js';
import { renderHandler } from '../render-pipeline.js';
import { documentOnly } from '../schemas/common.js';
import { renderUrl } from '../schemas/render-url.js';

/**
 * GET /render/url (spec §4.2): a PNG of the page's visible viewport, cached for the configured
 * TTL in our cache and downstream (`max-age` for browsers, `s-maxage` for CDNs), revalidated
 * with a strong ETag. HEAD answers with the same headers and no body.
 */
export function registerScreenshotRoutes(
  app: FastifyInstance,
  deps: { render: RenderCommand; screenshots: { readonly viewports: ReadonlyMap<string, Viewport> } },
): void {
  app.get(
    '/render/url',
    documentOnly(renderUrl),
    renderHandler(app, {
      parse: (req) => {
        const parsed = parseScreenshotRequest(req.query, deps.screenshots.viewports);
        refuseLongFresh(parsed, req.auth);
        return parsed;
      },
      render: (parsed, caller, opts) => deps.render.screenshot(parsed, caller, opts),
      cacheControl: (result, auth) => pngCacheControl(auth, result.maxAge, { age: result.age }),
      headers: shotHeaders,
    }),
  );
}

/**
 * A signed URL is public and every request to one with `fresh` is a capture its owner pays for:
 * refused (400) unless the URL expires within 30 minutes (a preview), whoever signed it.
 */
function refuseLongFresh(parsed: ScreenshotRequest, auth: AuthContext | null, now = Date.now()): void {
  if (!parsed.options?.fresh || auth?.via !== 'signature') return;
  const left = (auth.signatureExpiresAt ?? 0) - now / 1000;
  if (left > FRESH_SIGNED_MAX_SECONDS) {
    throw new AppError('bad_request', FRESH_SIGNED_REFUSED, {
      detail: `key ${auth.keyId}, ${Math.round(left)} s left`,
    });
  }
}

/** Age and X-Target-Status on every answer; a full-page capture's height, and whether it was cut. */
function shotHeaders(result: ShotResult): Record<string, string> {
  const headers: Record<string, string> = {
    Age: String(result.age),
    'X-Target-Status': String(result.targetStatus),
  };
  if (result.pageHeight !== undefined) headers['X-Page-Height'] = String(result.pageHeight);
  if (result.truncated) headers['X-Full-Page-Truncated'] = 'true';
  return headers;
}
