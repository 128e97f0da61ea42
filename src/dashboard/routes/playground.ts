import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, isAppError } from '../../errors.js';
import { STATUS } from '../../http/errors.js';
import { systemClock } from '../../lib/clock.js';
import { baseUrl, type DashboardDeps, sendPage, sessionOf } from '../context.js';
import { buildPlayground, type PlaygroundInput, signingKeys } from '../playground.js';
import { playgroundPage } from '../views/playground.js';

const DEFAULTS = {
  title: 'Ship beautiful social cards in milliseconds',
  subtitle: 'Self-hosted, cached at the edge, one HTTP call away.',
};

function readInput(source: unknown, fallback: PlaygroundInput): PlaygroundInput {
  const s = (source ?? {}) as Record<string, unknown>;
  const pick = (name: keyof PlaygroundInput) => {
    const v = s[name];
    return typeof v === 'string' ? v : fallback[name];
  };
  return {
    template: pick('template'),
    title: pick('title'),
    subtitle: pick('subtitle'),
    brand: pick('brand'),
    imageUrl: pick('imageUrl'),
    key: pick('key'),
  };
}

/** What both playgrounds start from: the signed-in account, its plan, its keys to sign with, now. */
export function playgroundContext(deps: DashboardDeps) {
  const clock = deps.clock ?? systemClock;
  const { plans, store } = deps.accounts;
  return async (req: FastifyRequest) => {
    const { account } = sessionOf(req);
    const plan = plans.get(account.plan);
    const now = clock.now();
    const keys = signingKeys(await store.listKeys(account.id), now);
    return { account, plan, keys, now };
  };
}

/** GET /dashboard/playground (works without script) and its JSON companion for live updates. */
export function registerPlaygroundRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  const { secrets } = deps.accounts;
  const context = playgroundContext(deps);

  scope.get('/playground', { config: { dashboard: 'page' } }, async (req, reply) => {
    const { account, plan, keys, now } = await context(req);
    const first = plan && plan.templates !== '*' ? (plan.templates[0] ?? 'blog') : 'saas';
    const hasQuery = Object.keys((req.query ?? {}) as object).length > 0;
    // A submitted form (query present) means exactly what it says; a first visit gets an example.
    const input = hasQuery
      ? readInput(req.query, { template: first, title: '', subtitle: '', brand: '', imageUrl: '', key: '' })
      : { template: first, ...DEFAULTS, brand: account.name, imageUrl: '', key: '' };
    let result = null;
    let error: string | null = null;
    if (plan && keys.length > 0) {
      try {
        result = buildPlayground({
          input,
          plan,
          keys,
          secrets,
          baseUrl: baseUrl(req, deps.config),
          now,
          ...(deps.registry ? { registry: deps.registry } : {}),
        });
      } catch (err) {
        if (!isAppError(err, 'bad_request', 'forbidden')) throw err;
        error = err.message;
      }
    }
    return sendPage(
      reply,
      playgroundPage({ account, csrf: req.dash!.csrf, plan, keys, input, result, error }),
      error ? STATUS.bad_request : 200,
    );
  });

  scope.post('/playground/preview', { config: { dashboard: 'api' } }, async (req, reply) => {
    const { plan, keys, now } = await context(req);
    if (!plan)
      throw new AppError('forbidden', 'Your plan is not configured on this server; contact its operator');
    const input = readInput(req.body, {
      template: '',
      title: '',
      subtitle: '',
      brand: '',
      imageUrl: '',
      key: '',
    });
    const result = buildPlayground({
      input,
      plan,
      keys,
      secrets,
      baseUrl: baseUrl(req, deps.config),
      now,
      ...(deps.registry ? { registry: deps.registry } : {}),
    });
    return reply.send(result);
  });
}
