import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAppError } from '../../errors.js';
import { STATUS } from '../../http/errors.js';
import { systemClock } from '../../lib/clock.js';
import { type DashboardDeps, field, seeOther, sendPage, sessionOf } from '../context.js';
import {
  confirmEndpointPage,
  type EndpointForm,
  EVENT_CHOICES,
  webhookPage,
  webhooksPage,
} from '../views/webhooks.js';

const NOTICES: Record<string, string> = {
  deleted: 'The endpoint is deleted: nothing more is sent to it.',
  tested: 'A webhook.test event is on its way; its attempt shows below in a moment.',
  redelivered: 'The message is queued again, with the same webhook-id.',
  'shown-once':
    'That secret was already shown once and cannot be shown again. If you did not save it, rotate it.',
};
const noticeFor = (name: string | undefined) =>
  name !== undefined && Object.hasOwn(NOTICES, name) ? NOTICES[name]! : null;

type Params = { Params: { id: string } };
type Query = { Querystring: { notice?: string; cursor?: string } };

/**
 * The Webhooks pages: endpoints, add (its secret shown once), a delivery log per endpoint with
 * redeliver, test, rotate (the new secret shown once) and delete. Everything goes through the
 * webhooks service, which answers another account's endpoint as missing.
 */
export function registerWebhookPages(scope: FastifyInstance, deps: DashboardDeps): void {
  const clock = deps.clock ?? systemClock;
  const service = deps.webhooks;
  const page = { config: { dashboard: 'page' as const } };
  const accountOf = (req: FastifyRequest) => sessionOf(req).account;
  // Issued here and bound to the session: a re-sent form cannot show a secret a second time.
  const onceFor = (req: FastifyRequest) => deps.sessions.formToken(sessionOf(req).id);
  const usedOnce = (req: FastifyRequest) =>
    deps.sessions.useFormToken(sessionOf(req).id, field(req.body, 'once'));

  const renderList = async (
    req: FastifyRequest,
    reply: FastifyReply,
    extra: Partial<Parameters<typeof webhooksPage>[0]> = {},
    status = 200,
  ) => {
    const account = accountOf(req);
    const endpoints = await service.list(account.id);
    const view = { account, csrf: req.dash!.csrf, once: onceFor(req), endpoints, now: clock.now(), ...extra };
    return sendPage(reply, webhooksPage(view), status);
  };

  const renderOne = async (
    req: FastifyRequest<Params & Query>,
    reply: FastifyReply,
    extra: Partial<Parameters<typeof webhookPage>[0]> = {},
    status = 200,
  ) => {
    const account = accountOf(req);
    const endpoint = await service.get(account.id, req.params.id);
    const cursor = req.query?.cursor;
    const log = await service.deliveries(account.id, endpoint.id, {
      limit: 20,
      ...(typeof cursor === 'string' && cursor !== '' ? { cursor } : {}),
    });
    const view = {
      account,
      csrf: req.dash!.csrf,
      endpoint,
      deliveries: log.deliveries,
      next: log.nextCursor,
      now: clock.now(),
      notice: noticeFor(req.query?.notice),
      ...extra,
    };
    return sendPage(reply, webhookPage(view), status);
  };

  scope.get<Query>('/webhooks', page, async (req, reply) =>
    renderList(req, reply, { notice: noticeFor(req.query.notice) }),
  );

  scope.post('/webhooks', page, async (req, reply) => {
    const form: EndpointForm = {
      url: field(req.body, 'url'),
      events: EVENT_CHOICES.map((c) => c.id).filter((id) => field(req.body, `ev-${id}`) === 'on'),
    };
    if (!(await usedOnce(req))) return seeOther(reply, '/dashboard/webhooks?notice=shown-once');
    if (form.events.length === 0) {
      return renderList(req, reply, { form: { ...form, error: 'Choose at least one event.' } }, 400);
    }
    try {
      const created = await service.create(accountOf(req).id, { url: form.url, events: form.events });
      req.log.info({ account: accountOf(req).id, endpoint: created.id }, 'dashboard: webhook endpoint added');
      return renderList(req, reply, { created }, 201);
    } catch (err) {
      if (isAppError(err, 'bad_request') || isAppError(err, 'conflict')) {
        const error = `${err.message[0]!.toUpperCase()}${err.message.slice(1)}.`;
        return renderList(req, reply, { form: { ...form, error } }, STATUS[err.code]);
      }
      throw err;
    }
  });

  scope.get<Params & Query>('/webhooks/:id', page, async (req, reply) => renderOne(req, reply));

  scope.post<Params>('/webhooks/:id/test', page, async (req, reply) => {
    await service.test(accountOf(req).id, req.params.id);
    return seeOther(reply, `/dashboard/webhooks/${req.params.id}?notice=tested`);
  });

  scope.post<{ Params: { id: string; delivery: string } }>(
    '/webhooks/:id/deliveries/:delivery/redeliver',
    page,
    async (req, reply) => {
      await service.redeliver(accountOf(req).id, req.params.id, req.params.delivery);
      return seeOther(reply, `/dashboard/webhooks/${req.params.id}?notice=redelivered`);
    },
  );

  for (const action of ['rotate', 'delete'] as const) {
    scope.get<Params>(`/webhooks/:id/${action}`, page, async (req, reply) => {
      const endpoint = await service.get(accountOf(req).id, req.params.id);
      const view = { account: accountOf(req), csrf: req.dash!.csrf, endpoint, action, once: onceFor(req) };
      return sendPage(reply, confirmEndpointPage(view));
    });
  }

  scope.post<Params & Query>('/webhooks/:id/rotate', page, async (req, reply) => {
    await service.get(accountOf(req).id, req.params.id);
    if (!(await usedOnce(req)))
      return seeOther(reply, `/dashboard/webhooks/${req.params.id}?notice=shown-once`);
    const rotated = await service.rotate(accountOf(req).id, req.params.id);
    req.log.info({ account: accountOf(req).id, endpoint: rotated.id }, 'dashboard: webhook secret rotated');
    return renderOne(req, reply, { rotated, notice: null }, 201);
  });

  scope.post<Params>('/webhooks/:id/delete', page, async (req, reply) => {
    await service.remove(accountOf(req).id, req.params.id);
    req.log.info(
      { account: accountOf(req).id, endpoint: req.params.id },
      'dashboard: webhook endpoint deleted',
    );
    return seeOther(reply, '/dashboard/webhooks?notice=deleted');
  });
}
