import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Plan } from '../../auth/plans.js';
import { AppError, isAppError } from '../../errors.js';
import { STATUS } from '../../http/errors.js';
import { systemClock } from '../../lib/clock.js';
import type { TemplateDefinition, TemplateRegistry } from '../../render/template/types.js';
import type { ApiKeyRecord } from '../../storage/store.js';
import { baseUrl, type DashboardDeps, sendPage, sessionOf } from '../context.js';
import { buildPlayground, inputNames, type PlaygroundInput, signingKeys } from '../playground.js';
import { playgroundPage } from '../views/playground.js';

/** A first visit's example text for the built-ins' fields. */
const EXAMPLE: Record<string, string> = {
  title: 'Ship beautiful social cards in milliseconds',
  subtitle: 'Self-hosted, cached at the edge, one HTTP call away.',
};

/**
 * The form as sent: the template, then only the names that template reads (a field left over
 * from the template shown before is not sent on), the theme box and the key.
 */
function readInput(source: unknown, registry: TemplateRegistry, fallbackTemplate: string): PlaygroundInput {
  const s = (source ?? {}) as Record<string, unknown>;
  const str = (name: string) => (typeof s[name] === 'string' ? (s[name] as string) : '');
  const template = str('template') || fallbackTemplate;
  const values: Record<string, string> = {};
  for (const name of inputNames(registry.get(template))) values[name] = str(name);
  // The form sends a hidden `useTheme=off` before the box, so an unticked box says so and a
  // link without the parameter (a bookmark, a shared URL) keeps the default: the account's theme.
  const box = Array.isArray(s.useTheme) ? s.useTheme.at(-1) : s.useTheme;
  const useTheme = box === undefined || ['on', 'true', '1'].includes(String(box));
  return { template, values, useTheme, key: str('key') };
}

/**
 * A first visit: the example text (a custom template's first text field gets the headline), the
 * declared defaults, the account's name as the brand.
 */
function firstInput(def: TemplateDefinition | undefined, template: string, brand: string): PlaygroundInput {
  const values: Record<string, string> = {};
  const headline = Object.entries(def?.fields ?? {}).find(([, f]) => f.type === 'text')?.[0];
  for (const name of inputNames(def)) {
    const given = def?.fields[name]?.default;
    values[name] = EXAMPLE[name] ?? (given !== undefined ? String(given) : '');
  }
  if (headline && !def?.fields.title) values[headline] = EXAMPLE.title!;
  if ('brand' in values) values.brand = brand;
  return { template, values, useTheme: true, key: '' };
}

/** What both playgrounds start from: the signed-in account, its plan, its keys to sign with, now. */
export function playgroundContext(deps: DashboardDeps) {
  const clock = deps.clock ?? systemClock;
  const { plans, accounts } = deps.accounts;
  return async (req: FastifyRequest) => {
    const { account } = sessionOf(req);
    const plan = plans.get(account.plan);
    const now = clock.now();
    const keys = signingKeys(await accounts.listKeys(account.id), now);
    return { account, plan, keys, now };
  };
}

/** GET /dashboard/playground (works without script) and its JSON companion for live updates. */
export function registerPlaygroundRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  const { secrets } = deps.accounts;
  const context = playgroundContext(deps);
  /** The preview, og:image URL and curl command both routes answer with. */
  const build = (
    req: FastifyRequest,
    input: PlaygroundInput,
    { plan, keys, now }: { plan: Plan; keys: readonly ApiKeyRecord[]; now: number },
  ) =>
    buildPlayground({
      input,
      registry: deps.registry,
      plan,
      keys,
      secrets,
      baseUrl: baseUrl(req, deps.config),
      now,
    });

  scope.get('/playground', { config: { dashboard: 'page' } }, async (req, reply) => {
    const { account, plan, keys, now } = await context(req);
    const first = plan && plan.templates !== '*' ? (plan.templates[0] ?? 'blog') : 'saas';
    const hasQuery = Object.keys((req.query ?? {}) as object).length > 0;
    // A submitted form (query present) means exactly what it says; a first visit gets an example.
    const input = hasQuery
      ? readInput(req.query, deps.registry, first)
      : firstInput(deps.registry.get(first), first, account.name);
    let result = null;
    let error: string | null = null;
    if (plan && keys.length > 0) {
      try {
        result = build(req, input, { plan, keys, now });
      } catch (err) {
        if (!isAppError(err, 'bad_request', 'forbidden')) throw err;
        error = err.message;
      }
    }
    return sendPage(
      reply,
      playgroundPage({
        account,
        csrf: req.dash!.csrf,
        plan,
        keys,
        registry: deps.registry,
        input,
        result,
        error,
      }),
      error ? STATUS.bad_request : 200,
    );
  });

  scope.post('/playground/preview', { config: { dashboard: 'api' } }, async (req, reply) => {
    const { plan, keys, now } = await context(req);
    if (!plan)
      throw new AppError('forbidden', 'Your plan is not configured on this server; contact its operator');
    const input = readInput(req.body, deps.registry, '');
    return reply.send(build(req, input, { plan, keys, now }));
  });
}
