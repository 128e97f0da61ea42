/**
 * The job queue's own dashboard (issue 28 §0: "a dashboard that can be mounted behind our admin
 * sign-in"): pg-boss's `@pg-boss/dashboard` (queues, their depth, throughput, dead letters, every
 * job and its data) mounted at /dashboard/admin/queue, for the operators only: a signed-in
 * dashboard user of an account listed in CARDSHOT_DASHBOARD_ADMINS. Everyone else, signed in or
 * not, gets the dashboard's 404 (a signed-out visitor is sent to sign in first), so the page
 * does not even say it exists. Only with PostgreSQL: the embedded SQLite queue is not pg-boss,
 * and there the route is not registered at all.
 *
 * Read-only: the package's forms post without our CSRF token, so only GET and HEAD are passed
 * on and its own read-only switch hides the buttons that would change a job. The package is
 * loaded on the first admin request (it brings React); the SQLite default never loads it.
 */
import fastifyCookie from '@fastify/cookie';
import type { DashboardHandler } from '@pg-boss/dashboard/handler';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { queueSchema } from '../../jobs/queue/open.js';
import { describeDatabase } from '../../storage/open.js';
import { baseUrl, type DashboardDeps, sendPage } from '../context.js';
import { isSecure, readCookie } from '../security.js';
import { errorPage, headingFor } from '../views/errors.js';

/** Where the queue dashboard is mounted. */
export const ADMIN_QUEUE_PATH = '/dashboard/admin/queue';

/**
 * Its inline scripts and styles (React Router's server rendering writes them) need 'unsafe-inline';
 * nothing else is loosened: same-origin everything, no frames, no form posts elsewhere.
 */
const QUEUE_CSP =
  "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'self'";
/** Headers of the package's answers that are not passed on (ours replace them). */
const DROPPED = new Set([
  'set-cookie',
  'content-security-policy',
  'content-length',
  'transfer-encoding',
  'connection',
  'x-frame-options',
]);

/** Mounts the queue dashboard for operators when the queue is pg-boss (PostgreSQL). */
export function registerAdminQueue(app: FastifyInstance, deps: DashboardDeps): void {
  const where = describeDatabase(deps.config);
  if (where.kind !== 'postgres') return;
  const admins = new Set(deps.config.dashboardAdmins.map((e) => e.toLowerCase()));
  let handler: Promise<DashboardHandler> | undefined;
  const load = async (): Promise<DashboardHandler> => {
    // The package's one switch, read per request: there is no option to pass it.
    process.env.PGBOSS_DASHBOARD_READ_ONLY = '1';
    const { createDashboardHandler } = await import('@pg-boss/dashboard/handler');
    return createDashboardHandler({
      databases: [{ url: where.location, name: 'cardshot', schema: queueSchema(deps.config.databaseSchema) }],
      basePath: ADMIN_QUEUE_PATH,
    });
  };

  app.register(
    async (scope) => {
      await scope.register(fastifyCookie);
      scope.addHook('onClose', async () => {
        if (handler) await (await handler.catch(() => undefined))?.close();
      });
      const serve = async (req: FastifyRequest, reply: FastifyReply) => {
        const secure = isSecure(req, deps.config);
        const resolved = await deps.sessions.resolve(readCookie(req, 'session', secure));
        if (resolved.state !== 'active') {
          const next = encodeURIComponent(req.url);
          const why = resolved.state === 'expired' ? 'expired=1' : 'from=app';
          return reply.code(303).header('Location', `/dashboard/sign-in?${why}&next=${next}`).send();
        }
        const account = resolved.session.account;
        if (!admins.has(account.email.toLowerCase())) {
          req.log.info({ account: account.id }, 'admin page refused: not an operator account');
          const message =
            'There is no dashboard page at this address. It may have moved, or the link may be mistyped.';
          return sendPage(
            reply.header('Cache-Control', 'no-store'),
            errorPage({ status: 404, heading: headingFor(404), message, account, csrf: '' }),
            404,
          );
        }
        handler ??= load().catch((err: unknown) => {
          handler = undefined;
          throw err;
        });
        const answer = await (await handler)(
          new Request(`${baseUrl(req, deps.config)}${req.url}`, {
            method: req.method,
            // Only what the page needs to choose its answer: never our cookies or keys.
            headers: pick(req, ['accept', 'accept-language', 'if-none-match']),
          }),
        );
        for (const [name, value] of answer.headers) {
          if (!DROPPED.has(name)) reply.header(name, value);
        }
        reply.header('Content-Security-Policy', QUEUE_CSP);
        reply.header('X-Frame-Options', 'DENY');
        reply.header('X-Content-Type-Options', 'nosniff');
        reply.header('Referrer-Policy', 'same-origin');
        reply.header('X-Robots-Tag', 'noindex, nofollow');
        if (!/\/assets\//.test(req.url)) reply.header('Cache-Control', 'no-store');
        return reply.code(answer.status).send(Buffer.from(await answer.arrayBuffer()));
      };
      scope.route({ method: ['GET', 'HEAD'], url: '/', handler: serve });
      scope.route({ method: ['GET', 'HEAD'], url: '/*', handler: serve });
    },
    { prefix: ADMIN_QUEUE_PATH },
  );
}

function pick(req: FastifyRequest, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) {
    const v = req.headers[n];
    if (typeof v === 'string') out[n] = v;
  }
  return out;
}
