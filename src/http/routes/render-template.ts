import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import type { CardRendered, RenderCommand } from '../../render/command.js';
import { parseTemplateRequest, type TemplateRequest } from '../../render/template/request.js';
import type { TemplateRegistry } from '../../render/template/types.js';
import { cardCacheControl } from '../cache-control.js';
import { type RenderRoute, renderHandler } from '../render-pipeline.js';
import { documentOnly } from '../schemas/common.js';
import { renderTemplateGet, renderTemplatePost } from '../schemas/render.js';

/**
 * POST /render/template (JSON body, spec §4.1) and GET /render/template (the same fields as
 * query parameters, so an og:image tag can point straight at us). Both answer identically.
 */
export function registerTemplateRoutes(
  app: FastifyInstance,
  deps: { render: RenderCommand; registry: TemplateRegistry },
): void {
  const card = (
    parse: (req: FastifyRequest) => TemplateRequest,
  ): RenderRoute<TemplateRequest, CardRendered> => ({
    parse,
    render: (parsed, caller, opts) => deps.render.card(parsed, caller, opts),
    // A signed answer is cacheable until its exp only, not for a year; a themed one is revalidated.
    cacheControl: (result, auth) => cardCacheControl(auth, result.themed),
    // takumi encodes the PNG inside its render call; the phase is named so a reader of the
    // header does not go looking for a missing encode step (JPEG, WebP, AVIF have their own).
    notes: (result): Record<string, string> =>
      result.kind === 'png' && result.format === 'png' && result.timings.render !== undefined
        ? { encode: 'included in render' }
        : {},
  });

  app.post(
    '/render/template',
    documentOnly(renderTemplatePost),
    renderHandler(
      app,
      card((req) => {
        rejectQueryFields(req);
        return parseTemplateRequest(req.body, 'body', undefined, deps.registry);
      }),
    ),
  );
  app.get(
    '/render/template',
    documentOnly(renderTemplateGet),
    renderHandler(
      app,
      card((req) => parseTemplateRequest(req.query, 'query', undefined, deps.registry)),
    ),
  );
}

/**
 * Fields in the query of a POST would be silently ignored: say so instead (credentials were
 * taken out of the query by authentication already).
 */
function rejectQueryFields(req: FastifyRequest): void {
  const stray = Object.keys((req.query ?? {}) as object);
  if (stray.length > 0) {
    const name = JSON.stringify(stray[0]!.slice(0, 40));
    throw new AppError(
      'bad_request',
      `POST reads the card's fields from the JSON body, not the query string (got ${name})`,
    );
  }
}
