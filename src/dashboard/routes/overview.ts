import type { FastifyInstance } from 'fastify';
import { keyStatus } from '../../accounts/manager.js';
import { systemClock } from '../../lib/clock.js';
import { budgetOf } from '../../ratelimit/budgets.js';
import { type DashboardDeps, sendPage, sessionOf } from '../context.js';
import { overviewPage } from '../views/overview.js';

/** GET /dashboard: usage, plan and the budget left now. */
export function registerOverviewRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  const clock = deps.clock ?? systemClock;
  const { accounts, plans } = deps.accounts;

  scope.get<{ Querystring: { welcome?: string } }>(
    '/',
    { config: { dashboard: 'page' } },
    async (req, reply) => {
      const { account } = sessionOf(req);
      // This node's pending counts first, so the chart includes the requests of the last seconds.
      await deps.usage.flush();
      const plan = plans.get(account.plan);
      // The account's own budget: what its keys' requests and its jobs' items spend.
      const own = plan ? budgetOf({ accountId: account.id, plan, spends: 'account' }) : null;
      const [days, keys, budget] = await Promise.all([
        accounts.usage(account.id, 30),
        accounts.listKeys(account.id),
        own ? deps.limiter.peek(own.key, own.limit, own.windowMs) : Promise.resolve(null),
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
