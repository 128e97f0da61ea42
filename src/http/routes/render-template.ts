import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerSecrets } from '../../auth/secret.js';
import { DeliveryError } from '../../delivery/errors.js';
import { type StoreRequest, takeStoreRequest } from '../../delivery/request.js';
import { type DeliveryService, uploadFailed } from '../../delivery/service.js';
import type { StoredObject } from '../../delivery/upload.js';
import { AppError } from '../../errors.js';
import type { CardRendered, RenderCommand } from '../../render/command.js';
import { parseTemplateRequest, type TemplateRequest } from '../../render/template/request.js';
import type { TemplateRegistry } from '../../render/template/types.js';
import { cardCacheControl } from '../cache-control.js';
import { type RenderRoute, renderHandler } from '../render-pipeline.js';
import { documentOnly } from '../schemas/common.js';
import { renderTemplateGet, renderTemplatePost } from '../schemas/render.js';
import { cardJsonAnswer, cardParams, takeResponse } from './card-json.js';

/** A card request as read: the card, and for a JSON answer what it is made of. */
interface CardInput {
  parsed: TemplateRequest;
  json: boolean;
  store: StoreRequest;
  /** The card's fields as a GET query (the JSON answer's signed URL); null when they cannot be. */
  params: Array<[string, string]> | null;
  base: string;
  requestId: string;
}

/**
 * POST /render/template (JSON body, spec §4.1) and GET /render/template (the same fields as
 * query parameters, so an og:image tag can point straight at us). Both answer identically.
 * `response=json` answers what the card is and a signed URL of it instead; with `store=s3` the
 * card is uploaded to the account's storage target first and the answer says where.
 */
export function registerTemplateRoutes(
  app: FastifyInstance,
  deps: {
    render: RenderCommand;
    registry: TemplateRegistry;
    accounts: { secrets: ServerSecrets };
    delivery: Pick<DeliveryService, 'resolve' | 'deliver'>;
  },
): void {
  const read = (req: FastifyRequest, input: unknown, source: 'body' | 'query'): CardInput => {
    const { rest: answer, store } = takeStoreRequest(input, (r) => r.response === 'json');
    const { rest, json } = takeResponse(answer);
    return {
      parsed: parseTemplateRequest(rest, source, undefined, deps.registry),
      json,
      store,
      params: json ? cardParams(rest as Record<string, unknown>) : null,
      base: `${req.protocol}://${req.host}`,
      requestId: req.id,
    };
  };

  const card = (
    parse: (req: FastifyRequest) => CardInput,
  ): RenderRoute<CardInput, CardRendered & { json?: true }> => ({
    parse,
    render: async (input, caller, opts) => {
      if (!input.json) return deps.render.card(input.parsed, caller, opts);
      const target = input.store ? await deps.delivery.resolve(caller.accountId, input.store.storage) : null;
      // A JSON answer holds a URL signed for now: never a 304 for an older one.
      const { ifNoneMatch: _inm, ...rest } = opts;
      const result = await deps.render.card(input.parsed, caller, rest);
      if (result.kind !== 'png') return result;
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
              etag: result.etag,
              values: { id: input.requestId, name: input.parsed.template },
              metadata: { 'cardshot-request': input.requestId, 'cardshot-source': input.parsed.template },
            },
            'refuse',
            opts.signal,
          );
        } catch (err) {
          throw err instanceof DeliveryError ? uploadFailed(err) : err;
        }
      }
      const { keyId } = caller;
      if (keyId === undefined)
        throw new AppError('internal', 'Internal server error', { detail: 'response=json without a key' });
      const body = await cardJsonAnswer(
        result,
        { params: input.params, base: input.base },
        { keyId, secrets: deps.accounts.secrets },
        stored,
      );
      return { ...result, body, contentType: 'application/json; charset=utf-8', json: true as const };
    },
    // A signed answer is cacheable until its exp only, not for a year; a themed one is revalidated.
    cacheControl: (result, auth) =>
      result.json ? 'private, no-store' : cardCacheControl(auth, result.themed),
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
        return read(req, req.body, 'body');
      }),
    ),
  );
  app.get(
    '/render/template',
    documentOnly(renderTemplateGet),
    renderHandler(
      app,
      card((req) => read(req, req.query, 'query')),
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
