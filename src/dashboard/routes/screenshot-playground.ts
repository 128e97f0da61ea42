import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Plan } from '../../auth/plans.js';
import { AppError, isAppError } from '../../errors.js';
import { STATUS } from '../../http/errors.js';
import { viewportCatalogue } from '../../render/screenshot/viewports.js';
import type { ApiKeyRecord } from '../../storage/store.js';
import { baseUrl, type DashboardDeps, sendPage } from '../context.js';
import {
  buildShotPlayground,
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
    buildShotPlayground({ input, plan, keys, secrets, viewports, baseUrl: baseUrl(req, deps.config), now });

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
}
