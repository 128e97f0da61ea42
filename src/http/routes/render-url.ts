import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthContext } from '../../auth/authenticate.js';
import { assertScreenshotAllowed } from '../../auth/plans.js';
import { FRESH_SIGNED_MAX_SECONDS, FRESH_SIGNED_REFUSED } from '../../auth/signing.js';
import { AppError } from '../../errors.js';
import { optionsInUse, SHOT_CONTENT_TYPES } from '../../render/screenshot/options.js';
import { parseScreenshotRequest, type ScreenshotRequest } from '../../render/screenshot/request.js';
import { parseScreenshotBody } from '../../render/screenshot/request-body.js';
import type { ScreenshotService, ShotResult } from '../../render/screenshot/service/service.js';
import type { UsageRecorder } from '../../usage/recorder.js';
import { pngCacheControl } from '../cache-control.js';
import { type RenderRoute, renderHandler } from '../render-pipeline.js';
import { documentOnly } from '../schemas/common.js';
import { renderUrl } from '../schemas/render-url.js';
import { renderUrlPost } from '../schemas/render-url-post.js';

/**
 * GET /render/url (spec §4.2): a PNG of the page's visible viewport, cached for the configured
 * TTL in our cache and downstream (`max-age` for browsers, `s-maxage` for CDNs), revalidated
 * with a strong ETag. HEAD answers with the same headers and no body.
 */
export function registerScreenshotRoutes(
  app: FastifyInstance,
  deps: { screenshots: ScreenshotService; usage: UsageRecorder },
): void {
  app.get(
    '/render/url',
    documentOnly(renderUrl),
    renderHandler(
      app,
      deps.usage,
      shotRoute(deps, (req) => parseScreenshotRequest(req.query, deps.screenshots.viewports)),
    ),
  );
  // The same capture from a JSON body, which alone may carry credentials (issue 29 §2).
  app.post(
    '/render/url',
    { ...documentOnly(renderUrlPost), bodyLimit: POST_BODY_LIMIT },
    renderHandler(
      app,
      deps.usage,
      shotRoute(deps, (req) => parseScreenshotBody(req.body, deps.screenshots.viewports)),
    ),
  );
}

/**
 * The most a POST /render/url body may hold: the 64 KB stylesheet, 16 KB of cookies, 8 KB of
 * headers and the rest, with room for JSON's escapes. Past it, 413 (1 MB of cookies included).
 */
export const POST_BODY_LIMIT = 160 * 1024;

/** What GET and POST share once the request is read. */
function shotRoute(
  deps: { screenshots: ScreenshotService },
  read: (req: FastifyRequest) => ScreenshotRequest,
): RenderRoute<ScreenshotRequest, ShotResult & { contentType: string }> {
  return {
    parse: (req) => {
      const parsed = read(req);
      refuseLongFresh(parsed, req.auth);
      return parsed;
    },
    allow: (plan, parsed) =>
      assertScreenshotAllowed(plan, parsed.viewport.name, optionsInUse(parsed.options)),
    // The account scopes the cache and takes the capture from its share of the browser.
    resolve: async (parsed, opts, auth) => {
      const result = await deps.screenshots.resolve(parsed, {
        ...opts,
        owner: { accountId: auth.accountId, plan: auth.plan },
      });
      return { ...result, contentType: SHOT_CONTENT_TYPES[result.format] };
    },
    usage: 'screenshot',
    cacheControl: (result, auth) => pngCacheControl(auth, result.maxAge, { age: result.age }),
    headers: shotHeaders,
  };
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

/** Age and X-Target-Status on every answer; a full-page capture's height or a PDF's pages, and whether it was cut. */
function shotHeaders(result: ShotResult): Record<string, string> {
  const headers: Record<string, string> = {
    Age: String(result.age),
    'X-Target-Status': String(result.targetStatus),
  };
  if (result.pageHeight !== undefined) headers['X-Page-Height'] = String(result.pageHeight);
  if (result.pages !== undefined) headers['X-Pdf-Pages'] = String(result.pages);
  // A PDF is cut at CARDSHOT_PDF_MAX_PAGES pages, an image at its maximum height.
  if (result.truncated)
    headers[result.format === 'pdf' ? 'X-Pdf-Truncated' : 'X-Full-Page-Truncated'] = 'true';
  return headers;
}
