import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthContext } from '../../auth/authenticate.js';
import type { ServerSecrets } from '../../auth/secret.js';
import { FRESH_SIGNED_MAX_SECONDS, FRESH_SIGNED_REFUSED } from '../../auth/signing.js';
import { screenshotParams } from '../../client/options.js';
import { DeliveryError } from '../../delivery/errors.js';
import { hostName } from '../../delivery/paths.js';
import { type StoreRequest, takeStoreRequest } from '../../delivery/request.js';
import { type DeliveryService, uploadFailed } from '../../delivery/service.js';
import type { StoredObject } from '../../delivery/upload.js';
import { AppError } from '../../errors.js';
import type { RenderCommand, ShotRendered } from '../../render/command.js';
import { parseScreenshotRequest, type ScreenshotRequest } from '../../render/screenshot/request.js';
import { parseScreenshotBody } from '../../render/screenshot/request-body.js';
import { imageEtag } from '../../render/screenshot/service/entries.js';
import type { ShotResult } from '../../render/screenshot/types.js';
import type { Viewport } from '../../render/screenshot/viewports.js';
import { pngCacheControl } from '../cache-control.js';
import { type RenderRoute, renderHandler } from '../render-pipeline.js';
import { documentOnly } from '../schemas/common.js';
import { renderUrl } from '../schemas/render-url.js';
import { renderUrlPost } from '../schemas/render-url-post.js';
import { jsonAnswer } from './shot-json.js';

/** What the screenshot routes render with. */
interface ShotDeps {
  render: RenderCommand;
  screenshots: { readonly viewports: ReadonlyMap<string, Viewport> };
  accounts: { secrets: ServerSecrets };
  /** Storage targets: a JSON answer with store=s3 is uploaded there first. */
  delivery: Pick<DeliveryService, 'resolve' | 'deliver'>;
}

/**
 * GET /render/url (spec §4.2): a PNG of the page's visible viewport, cached for the configured
 * TTL in our cache and downstream (`max-age` for browsers, `s-maxage` for CDNs), revalidated
 * with a strong ETag. HEAD answers with the same headers and no body.
 */
export function registerScreenshotRoutes(app: FastifyInstance, deps: ShotDeps): void {
  app.get(
    '/render/url',
    documentOnly(renderUrl),
    renderHandler(
      app,
      shotRoute(deps, (req) => {
        const { rest, store } = takeStoreRequest(req.query as Record<string, string>, isJson);
        return {
          parsed: parseScreenshotRequest(rest, deps.screenshots.viewports),
          params: Object.entries(rest),
          store,
        };
      }),
    ),
  );
  // The same capture from a JSON body, which alone may carry credentials (issue 29 §2).
  app.post(
    '/render/url',
    { ...documentOnly(renderUrlPost), bodyLimit: POST_BODY_LIMIT },
    renderHandler(
      app,
      shotRoute(deps, (req) => {
        const { rest: body, store } = takeStoreRequest(req.body, isJson);
        const parsed = parseScreenshotBody(body, deps.screenshots.viewports);
        // The image URL of a JSON answer: the body's options as the GET's query (no credentials).
        const {
          headers: _h,
          cookies: _c,
          basicAuth: _b,
          userAgent: _u,
          ...rest
        } = body as Record<string, unknown>;
        return { parsed, params: screenshotParams(rest), store };
      }),
    ),
  );
}

/**
 * The most a POST /render/url body may hold: the 64 KB stylesheet, 16 KB of cookies, 8 KB of
 * headers and the rest, with room for JSON's escapes. Past it, 413 (1 MB of cookies included).
 */
export const POST_BODY_LIMIT = 160 * 1024;

const isJson = (rest: Record<string, unknown>) => rest.response === 'json';

/** A request as read, and what a JSON answer's image URL is made of. */
interface ShotInput {
  parsed: ScreenshotRequest;
  /** store=s3: upload the capture, answer its location. */
  store: StoreRequest;
  requestId: string;
  /** The request's options as GET query pairs (the POST body's too). */
  params: Array<readonly [string, string]>;
  /** This server's address as the caller reached it. */
  base: string;
}

/** What GET and POST share once the request is read: the render command does plan, limit, usage. */
function shotRoute(
  deps: ShotDeps,
  read: (req: FastifyRequest) => {
    parsed: ScreenshotRequest;
    params: Array<readonly [string, string]>;
    store: StoreRequest;
  },
): RenderRoute<ShotInput, ShotRendered & { json?: true }> {
  return {
    parse: (req) => {
      const { parsed, params, store } = read(req);
      refuseLongFresh(parsed, req.auth);
      return { parsed, params, store, requestId: req.id, base: `${req.protocol}://${req.host}` };
    },
    render: async ({ parsed, params, base, store, requestId }, caller, opts) => {
      const json = parsed.options?.response === 'json';
      // The target is found before the capture: a wrong storage id costs no browser.
      const target = store ? await deps.delivery.resolve(caller.accountId, store.storage) : null;
      // A JSON answer holds a URL signed for now: never a 304 for an older one.
      const { ifNoneMatch: _inm, ...rest } = opts;
      const result = await deps.render.screenshot(parsed, caller, json ? rest : opts);
      if (!json || result.kind !== 'png') return result;
      // Every caller of this route is an API key or a key's signed URL: the URL is signed with it.
      const { keyId } = caller;
      if (keyId === undefined)
        throw new AppError('internal', 'Internal server error', { detail: 'response=json without a key' });
      let stored: StoredObject | undefined;
      if (target) {
        try {
          stored = await deps.delivery.deliver(
            {
              accountId: caller.accountId,
              target,
              kind: 'sync',
              body: result.body,
              contentType: result.contentType,
              etag: imageEtag(result.body, parsed.options),
              values: { id: requestId, name: hostName(parsed.url) },
              metadata: { 'cardshot-request': requestId, 'cardshot-source': parsed.url },
            },
            'refuse',
            opts.signal,
          );
        } catch (err) {
          throw err instanceof DeliveryError ? uploadFailed(err) : err;
        }
      }
      const body = await jsonAnswer(
        result,
        parsed,
        { params, base },
        { keyId },
        deps.accounts.secrets,
        Date.now(),
        stored,
      );
      return { ...result, body, contentType: 'application/json; charset=utf-8', json: true as const };
    },
    cacheControl: (result, auth) =>
      result.json ? 'private, no-store' : pngCacheControl(auth, result.maxAge, { age: result.age }),
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
export function shotHeaders(result: ShotResult): Record<string, string> {
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
