import type { FastifyInstance } from 'fastify';
import { keyStatus } from '../../accounts/manager.js';
import { rateLimitKey } from '../../http/access.js';
import { systemClock } from '../../lib/clock.js';
import { type DashboardDeps, sendPage, sessionOf } from '../context.js';
import { overviewPage } from '../views/overview.js';

/** GET /dashboard: usage, plan and the budget left now. */
export function registerOverviewRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  const clock = deps.clock ?? systemClock;
  const { accounts, plans, store } = deps.accounts;

  scope.get<{ Querystring: { welcome?: string } }>(
    '/',
    { config: { dashboard: 'page' } },
    async (req, reply) => {
      const { account } = sessionOf(req);
      // This node's pending counts first, so the chart includes the requests of the last seconds.
      await deps.usage.flush();
      const plan = plans.get(account.plan);
      const [days, keys, budget] = await Promise.all([
        accounts.usage(account.id, 30),
        store.listKeys(account.id),
        plan
          ? deps.limiter.peek(
              rateLimitKey(account.id),
              plan.rateLimit.requests,
              plan.rateLimit.windowSeconds * 1000,
            )
          : Promise.resolve(null),
      ]);
      const now = clock.now();
      return sendPage(
        reply,
        overviewPage({
          account,
          csrf: req.dash!.csrf,
          plan,
          budget,
          days,
          activeKeys: keys.filter((k) => keyStatus(k, now) === 'active').length,
          welcome: req.query.welcome === '1',
          ...(deps.registry ? { templates: deps.registry.names() } : {}),
        }),
      );
    },
  );
}
