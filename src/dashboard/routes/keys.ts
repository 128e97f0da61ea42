import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isAppError } from '../../errors.js';
import { STATUS } from '../../http/errors.js';
import { systemClock } from '../../lib/clock.js';
import type { ApiKeyRecord } from '../../storage/store.js';
import { type DashboardDeps, field, seeOther, sendPage, sessionOf } from '../context.js';
import {
  type CreateForm,
  ENVIRONMENTS,
  EXPIRY_CHOICES,
  GRACE_CHOICES,
  keysPage,
  type Notice,
  revokePage,
  rotatePage,
} from '../views/keys.js';

const NOTICES: Record<string, Notice> = {
  revoked: { kind: 'success', text: 'The key is revoked. Requests with it now get 401.' },
  rotated: {
    kind: 'info',
    text: 'That key was already rotated: it works only until its grace period ends. Rotate its replacement instead.',
  },
  'shown-once': {
    kind: 'info',
    text: 'That key was already shown once and cannot be shown again. If you did not save it, rotate or revoke it.',
  },
};

/** The notice a redirect asked for; own keys only, so `?notice=constructor` shows nothing. */
function noticeFor(name: string | undefined): Notice | null {
  return name !== undefined && Object.hasOwn(NOTICES, name) ? NOTICES[name]! : null;
}

function readCreateForm(body: unknown): CreateForm {
  return {
    name: field(body, 'name'),
    environment: field(body, 'environment'),
    custom: field(body, 'custom').toLowerCase(),
    expires: field(body, 'expires'),
  };
}

/** The environment and lifetime (days, 0 for none) a create form asks for, or why it is sent back. */
function checkCreateForm(form: CreateForm): { env: string; days: number } | { error: string } {
  if (form.name === '') return { error: 'Give the key a name, such as “Website” or “CI”.' };
  const env =
    form.environment === 'custom'
      ? form.custom
      : (ENVIRONMENTS as readonly string[]).includes(form.environment)
        ? form.environment
        : '';
  if (env === '') {
    return {
      error:
        form.environment === 'custom'
          ? 'Enter a custom label: 1–16 lower-case letters and digits, starting with a letter.'
          : 'Choose an environment.',
    };
  }
  const expiry = EXPIRY_CHOICES.find((c) => c.value === form.expires);
  if (!expiry) return { error: 'Choose when the key expires.' };
  return { env, days: expiry.value === '' ? 0 : Number.parseInt(expiry.value, 10) };
}

/** The form's wording for a key the manager refused as a bad request. */
function refusalText(message: string): string {
  return message.startsWith('environment')
    ? 'The custom label must be 1–16 lower-case letters and digits, starting with a letter.'
    : `${message[0]!.toUpperCase()}${message.slice(1)}.`;
}

type Params = { Params: { id: string } };

/** The API keys panel: list, create (shown once), revoke with confirmation, rotate with a grace period. */
export function registerKeyRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  const clock = deps.clock ?? systemClock;
  const { accounts } = deps.accounts;
  const page = { config: { dashboard: 'page' as const } };

  /** The key with this id if it belongs to the signed-in account; a 404 page otherwise. */
  const ownKey = async (req: FastifyRequest<Params>): Promise<ApiKeyRecord> => {
    const key = await accounts.findOwnKey(sessionOf(req).account.id, req.params.id);
    if (!key) throw new AppError('not_found', 'There is no such key.');
    return key;
  };

  // Issued here and bound to the session: a form the server did not serve cannot show a key.
  const onceFor = (req: FastifyRequest) => deps.sessions.formToken(sessionOf(req).id);
  const renderList = async (
    req: FastifyRequest,
    reply: FastifyReply,
    extra: Partial<Parameters<typeof keysPage>[0]> = {},
    status = 200,
  ) => {
    const { account } = sessionOf(req);
    const keys = await accounts.listKeys(account.id);
    return sendPage(
      reply,
      keysPage({ account, csrf: req.dash!.csrf, keys, now: clock.now(), once: onceFor(req), ...extra }),
      status,
    );
  };

  scope.get<{ Querystring: { notice?: string } }>('/keys', page, async (req, reply) =>
    renderList(req, reply, { notice: noticeFor(req.query.notice) }),
  );

  scope.post('/keys', page, async (req, reply) => {
    const { account } = sessionOf(req);
    const form = readCreateForm(req.body);
    // A reloaded or re-sent form carries a token that was used: the key is never shown twice.
    const once = field(req.body, 'once');
    if (!(await deps.sessions.useFormToken(sessionOf(req).id, once))) {
      return seeOther(reply, '/dashboard/keys?notice=shown-once');
    }
    const invalid = (error: string) =>
      renderList(req, reply, { form: { ...form, error } }, STATUS.bad_request);
    const checked = checkCreateForm(form);
    if ('error' in checked) return invalid(checked.error);
    try {
      const created = await accounts.createKey({
        accountId: account.id,
        name: form.name,
        environment: checked.env,
        expiresAt: checked.days === 0 ? null : clock.now() + checked.days * 86_400_000,
      });
      req.log.info({ account: account.id, keyId: created.record.id }, 'dashboard: key created');
      return renderList(req, reply, { created }, 201);
    } catch (err) {
      if (isAppError(err, 'conflict')) {
        return renderList(req, reply, { form: { ...form, error: `${err.message}.` } }, STATUS.conflict);
      }
      if (isAppError(err, 'bad_request')) return invalid(refusalText(err.message));
      throw err;
    }
  });

  scope.get<Params>('/keys/:id/revoke', page, async (req, reply) => {
    const key = await ownKey(req);
    return sendPage(reply, revokePage({ account: sessionOf(req).account, csrf: req.dash!.csrf, key }));
  });

  scope.post<Params>('/keys/:id/revoke', page, async (req, reply) => {
    const key = await ownKey(req);
    await accounts.revokeKey(key.id);
    req.log.info({ account: key.accountId, keyId: key.id }, 'dashboard: key revoked');
    return seeOther(reply, '/dashboard/keys?notice=revoked');
  });

  scope.get<Params>('/keys/:id/rotate', page, async (req, reply) => {
    const key = await ownKey(req);
    if (key.replacedBy !== null) return seeOther(reply, '/dashboard/keys?notice=rotated');
    return sendPage(
      reply,
      rotatePage({ account: sessionOf(req).account, csrf: req.dash!.csrf, key, once: onceFor(req) }),
    );
  });

  scope.post<Params>('/keys/:id/rotate', page, async (req, reply) => {
    const key = await ownKey(req);
    const grace = GRACE_CHOICES.find((g) => g.value === field(req.body, 'grace'));
    if (!grace) {
      return sendPage(
        reply,
        rotatePage({
          account: sessionOf(req).account,
          csrf: req.dash!.csrf,
          key,
          once: onceFor(req),
          error: 'Choose when the old key stops working.',
        }),
        STATUS.bad_request,
      );
    }
    const once = field(req.body, 'once');
    if (!(await deps.sessions.useFormToken(sessionOf(req).id, once))) {
      return seeOther(reply, '/dashboard/keys?notice=shown-once');
    }
    let rotated: Awaited<ReturnType<typeof accounts.rotateKey>>;
    try {
      rotated = await accounts.rotateKey(key.id, grace.ms);
    } catch (err) {
      // Rotated meanwhile (another tab): say so instead of an error page.
      if (isAppError(err, 'conflict')) return seeOther(reply, '/dashboard/keys?notice=rotated');
      throw err;
    }
    const { created, old } = rotated;
    req.log.info(
      { account: key.accountId, keyId: key.id, newKeyId: created.record.id },
      'dashboard: key rotated',
    );
    return renderList(req, reply, { created, rotatedFrom: old }, 201);
  });
}
