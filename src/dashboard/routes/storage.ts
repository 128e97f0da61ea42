import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAppError } from '../../errors.js';
import { STATUS } from '../../http/errors.js';
import { systemClock } from '../../lib/clock.js';
import { type DashboardDeps, field, seeOther, sendPage, sessionOf } from '../context.js';
import { storagePage, type TargetForm } from '../views/storage.js';

const NOTICES: Record<string, string> = {
  deleted: 'The storage target is deleted; objects already stored stay in the bucket.',
};
type Params = { Params: { id: string } };

/**
 * The Storage page: the account's S3-compatible targets, add (the secret is taken, never shown
 * again), test and delete. Everything goes through the delivery service, which answers another
 * account's target as missing.
 */
export function registerStoragePages(scope: FastifyInstance, deps: DashboardDeps): void {
  const service = deps.delivery;
  if (!service) return;
  const clock = deps.clock ?? systemClock;
  const page = { config: { dashboard: 'page' as const } };
  const accountOf = (req: FastifyRequest) => sessionOf(req).account;

  const render = async (
    req: FastifyRequest,
    reply: FastifyReply,
    extra: Partial<Parameters<typeof storagePage>[0]> = {},
    status = 200,
  ) => {
    const account = accountOf(req);
    const targets = await service.list(account.id);
    return sendPage(
      reply,
      storagePage({ account, csrf: req.dash!.csrf, targets, now: clock.now(), ...extra }),
      status,
    );
  };

  scope.get<{ Querystring: { notice?: string } }>('/storage', page, async (req, reply) => {
    const name = req.query.notice;
    return render(req, reply, {
      notice: name !== undefined && Object.hasOwn(NOTICES, name) ? NOTICES[name]! : null,
    });
  });

  scope.post('/storage', page, async (req, reply) => {
    const form: TargetForm = {
      endpoint: field(req.body, 'endpoint'),
      region: field(req.body, 'region'),
      bucket: field(req.body, 'bucket'),
      prefix: field(req.body, 'prefix'),
      pathTemplate: field(req.body, 'pathTemplate'),
      syncPathTemplate: field(req.body, 'syncPathTemplate'),
      accessKeyId: field(req.body, 'accessKeyId'),
    };
    // Empty optional fields are left out, so the defaults apply.
    const input = Object.fromEntries(Object.entries(form).filter(([, v]) => v !== ''));
    try {
      const created = await service.create(accountOf(req).id, {
        ...input,
        secretAccessKey: field(req.body, 'secretAccessKey'),
      });
      req.log.info({ account: accountOf(req).id, target: created.id }, 'dashboard: storage target added');
      return render(
        req,
        reply,
        { notice: `Target ${created.id} added. Test it to check the key can write.` },
        201,
      );
    } catch (err) {
      if (isAppError(err, 'bad_request') || isAppError(err, 'conflict')) {
        const error = `${err.message[0]!.toUpperCase()}${err.message.slice(1)}.`;
        return render(req, reply, { form: { ...form, error } }, STATUS[err.code]);
      }
      throw err;
    }
  });

  scope.post<Params>('/storage/:id/test', page, async (req, reply) => {
    const result = await service.test(accountOf(req).id, req.params.id);
    return render(req, reply, { tested: { id: req.params.id, result } });
  });

  scope.post<Params>('/storage/:id/delete', page, async (req, reply) => {
    await service.remove(accountOf(req).id, req.params.id);
    req.log.info({ account: accountOf(req).id, target: req.params.id }, 'dashboard: storage target deleted');
    return seeOther(reply, '/dashboard/storage?notice=deleted');
  });
}
