import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sweepFirstRunFiles } from '../../accounts/first-run.js';
import { isAppError } from '../../errors.js';
import { STATUS } from '../../http/errors.js';
import { systemClock } from '../../lib/clock.js';
import { type DashboardDeps, field, seeOther, sendPage, sessionOf } from '../context.js';
import { createDeviceCookies } from '../devices.js';
import { clearCookie, readCookie, setCookie } from '../security.js';
import { countSignInAttempt } from '../sign-in-limits.js';
import { invitePage, signInPage } from '../views/auth.js';

/** The generic refusal: it never says whether the email exists. */
export const SIGN_IN_FAILED = 'Email or password is incorrect';

const NEXT = /^\/dashboard(?:\/[A-Za-z0-9\-._~/%]*)?(?:\?[A-Za-z0-9\-._~%&=+]*)?$/;

/** Where to go after signing in: a dashboard path only, never another site. */
function safeNext(next: string): string | undefined {
  return NEXT.test(next) && !next.includes('//') && !next.includes('..') && !/%2e/i.test(next)
    ? next
    : undefined;
}

/** Sign-in, sign-out and invite links. */
export function registerAuthRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  const { config, sessions, limiter, log } = deps;
  const { credentials } = deps.accounts;
  const devices = createDeviceCookies(deps.accounts.secrets, deps.clock ?? systemClock);

  const startSession = async (
    reply: Parameters<typeof seeOther>[0],
    account: { id: string; email: string },
    dash: NonNullable<FastifyRequest['dash']>,
  ): Promise<void> => {
    const secure = dash.secure;
    // Signing in again (or through an invite) while signed in replaces the old session; left
    // alive, it would outlast the sign-out the user makes later.
    if (dash.session) await sessions.end(dash.session.id);
    const s = await sessions.start(account.id);
    setCookie(reply, 'session', s.id, Math.floor(sessions.maxMs / 1000), secure);
    clearCookie(reply, 'pre', secure);
    // Kept after sign-out: it marks this browser as the owner's for the sign-in limits.
    const device = devices.issue(account.email.trim().toLowerCase());
    setCookie(reply, 'device', device, devices.maxAgeSeconds, secure);
  };

  scope.get<{ Querystring: Record<string, string> }>(
    '/sign-in',
    { config: { dashboard: 'public' } },
    async (req, reply) => {
      const dash = req.dash!;
      if (dash.session) return seeOther(reply, '/dashboard');
      const q = req.query;
      const notice =
        dash.expired || q.expired === '1'
          ? 'Your session has ended. Sign in again to continue.'
          : q['signed-out'] === '1'
            ? 'You have signed out.'
            : null;
      const next = safeNext(typeof q.next === 'string' ? q.next : '');
      return sendPage(reply, signInPage({ csrf: dash.csrf, notice, ...(next ? { next } : {}) }));
    },
  );

  scope.post('/sign-in', { config: { dashboard: 'public' } }, async (req, reply) => {
    const dash = req.dash!;
    const email = field(req.body, 'email').toLowerCase();
    const raw = (req.body as Record<string, unknown> | undefined)?.password;
    const password = typeof raw === 'string' ? raw : '';
    const next = safeNext(field(req.body, 'next'));
    const render = (status: number, error: string) =>
      sendPage(reply, signInPage({ csrf: dash.csrf, email, error, ...(next ? { next } : {}) }), status);
    if (email === '' || password === '') return render(STATUS.bad_request, 'Enter your email and password.');

    const device = devices.verify(email, readCookie(req, 'device', dash.secure));
    const refused = await countSignInAttempt(
      limiter,
      config,
      { email, ip: req.ip, device },
      deps.accounts.secrets,
    );
    if (refused) {
      const wait = Math.max(1, Math.ceil(refused.resetMs / 1000));
      log.warn({ ip: req.ip, by: refused.by }, 'dashboard sign-in rate limited');
      reply.header('Retry-After', String(wait));
      const minutes = Math.ceil(wait / 60);
      return render(
        STATUS.rate_limited,
        `Too many sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      );
    }

    const account = await credentials.verify(email, password);
    if (!account) {
      log.info({ ip: req.ip }, 'dashboard sign-in refused');
      return render(STATUS.unauthorized, SIGN_IN_FAILED);
    }
    await startSession(reply, account, dash);
    log.info({ account: account.id }, 'dashboard sign-in');
    return seeOther(reply, next ?? '/dashboard');
  });

  scope.post('/sign-out', { config: { dashboard: 'page' } }, async (req, reply) => {
    await sessions.end(sessionOf(req).id);
    clearCookie(reply, 'session', req.dash!.secure);
    return seeOther(reply, '/dashboard/sign-in?signed-out=1');
  });

  scope.get<{ Querystring: { token?: string } }>(
    '/invite',
    { config: { dashboard: 'public' } },
    async (req, reply) => {
      const token = typeof req.query.token === 'string' ? req.query.token : '';
      const account = await credentials.inspectInvite(token);
      return sendPage(
        reply,
        invitePage({ csrf: req.dash!.csrf, token, email: account?.email ?? null }),
        account ? 200 : STATUS.bad_request,
      );
    },
  );

  scope.post('/invite', { config: { dashboard: 'public' } }, async (req, reply) => {
    const dash = req.dash!;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const token = field(body, 'token');
    const password = typeof body.password === 'string' ? body.password : '';
    const confirm = typeof body.confirm === 'string' ? body.confirm : '';
    const account = await credentials.inspectInvite(token);
    const render = (error: string) =>
      sendPage(
        reply,
        invitePage({ csrf: dash.csrf, token, email: account?.email ?? null, error }),
        STATUS.bad_request,
      );
    if (!account) return render('This invite link has expired or was already used.');
    if (password !== confirm) return render('The two passwords do not match.');
    try {
      await credentials.acceptInvite(token, password);
    } catch (err) {
      if (isAppError(err, 'bad_request')) return render(err.message);
      throw err;
    }
    await startSession(reply, account, dash);
    log.info({ account: account.id }, 'dashboard password set from an invite link');
    // A first-run file holding this invite (and a live key) has done its job: removed now.
    for (const file of await sweepFirstRunFiles(config.dataDir, credentials)) {
      log.info({ file }, 'removed the first-run file (invite used or expired)');
    }
    return seeOther(reply, '/dashboard?welcome=1');
  });
}
