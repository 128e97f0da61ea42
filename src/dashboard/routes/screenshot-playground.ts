import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Plan } from '../../auth/plans.js';
import { AppError, isAppError } from '../../errors.js';
import { clientGoneSignal } from '../../http/client-gone.js';
import { STATUS } from '../../http/errors.js';
import { POST_BODY_LIMIT, shotHeaders } from '../../http/routes/render-url.js';
import { jsonAnswer } from '../../http/routes/shot-json.js';
import { viewportCatalogue } from '../../render/screenshot/viewports.js';
import type { ApiKeyRecord } from '../../storage/store.js';
import { baseUrl, type DashboardDeps, sendPage } from '../context.js';
import { readPlaygroundCapture, renderPlaygroundCapture } from '../screenshot-capture.js';
import {
  buildShotPlayground,
  readCredentialNames,
  readShotInput,
  type ShotPlaygroundInput,
  type ShotPlaygroundResult,
} from '../screenshot-playground.js';
import { screenshotPlaygroundPage } from '../views/screenshot-playground.js';
import { playgroundContext } from './playground.js';

/**
 * GET /dashboard/playground/screenshot (works without script: the form is a GET, the preview an
 * <img> of the signed URL) and its JSON companion that signs the request as the form changes.
 * Both only sign: the capture itself is the API's, made by the browser with the signed URL, so
 * it goes through the account's plan, rate limit, queue share and usage like any request.
 */
export function registerScreenshotPlaygroundRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  const { secrets } = deps.accounts;
  // The presets the API knows (the config was validated at start, so this cannot throw here).
  const viewports = viewportCatalogue(deps.config.screenshotViewports);

  const context = playgroundContext(deps);
  /** The signed URLs both routes answer with. */
  const build = (
    req: FastifyRequest,
    input: ShotPlaygroundInput,
    { plan, keys, now }: { plan: Plan; keys: readonly ApiKeyRecord[]; now: number },
  ) =>
    buildShotPlayground({
      input,
      plan,
      keys,
      secrets,
      viewports,
      baseUrl: baseUrl(req, deps.config),
      now,
      credentials: readCredentialNames(req.body),
    });

  scope.get('/playground/screenshot', { config: { dashboard: 'page' } }, async (req, reply) => {
    const { account, plan, keys, now } = await context(req);
    const input = readShotInput(req.query);
    let result: ShotPlaygroundResult | null = null;
    let error: string | null = null;
    // A first visit (no URL yet) shows the empty form; a submitted one means what it says.
    if (plan && keys.length > 0 && input.url !== '') {
      try {
        result = build(req, input, { plan, keys, now });
      } catch (err) {
        if (!isAppError(err, 'bad_request', 'forbidden')) throw err;
        error = err.message;
      }
    }
    const page = screenshotPlaygroundPage({
      account,
      csrf: req.dash!.csrf,
      plan,
      keys,
      viewports: [...viewports.values()],
      input,
      result,
      error,
    });
    return sendPage(reply, page, error ? STATUS.bad_request : 200);
  });

  scope.post('/playground/screenshot/preview', { config: { dashboard: 'api' } }, async (req, reply) => {
    const { plan, keys, now } = await context(req);
    if (!plan)
      throw new AppError('forbidden', 'Your plan is not configured on this server; contact its operator');
    return reply.send(build(req, readShotInput(req.body), { plan, keys, now }));
  });

  // A capture with credentials (screenshot-capture.ts says why it is not a signed URL). The
  // answer is the API's: the image, PDF or JSON with its headers; an error is `{ "error" }`.
  scope.post(
    '/playground/screenshot/capture',
    { config: { dashboard: 'api' }, bodyLimit: POST_BODY_LIMIT },
    async (req, reply) => {
      const { account, plan, keys, now } = await context(req);
      if (!plan)
        throw new AppError('forbidden', 'Your plan is not configured on this server; contact its operator');
      const capture = readPlaygroundCapture(req.body, { accountId: account.id, plan, keys, now, viewports });
      const result = await renderPlaygroundCapture(deps.render, capture, clientGoneSignal(req, reply));
      if (result.kind !== 'png') throw new AppError('internal', 'Internal server error');
      for (const [name, value] of Object.entries(shotHeaders(result))) reply.header(name, value);
      reply.header('X-Cache', result.cache ?? 'MISS');
      reply.header('ETag', `"${result.etag}"`);
      if (capture.parsed.options?.response === 'json') {
        const body = await jsonAnswer(
          result,
          capture.parsed,
          { params: capture.params, base: baseUrl(req, deps.config) },
          { keyId: capture.caller.keyId! },
          secrets,
        );
        return reply.type('application/json; charset=utf-8').send(body);
      }
      return reply.type(result.contentType).send(result.body);
    },
  );
}
