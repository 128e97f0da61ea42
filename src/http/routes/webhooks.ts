import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { parseEndpointInput } from '../../webhooks/input.js';
import type { WebhookService } from '../../webhooks/service.js';
import { documentOnly } from '../schemas/common.js';
import {
  createWebhookSchema,
  deleteWebhookSchema,
  getWebhookSchema,
  listDeliveriesSchema,
  listWebhooksSchema,
  redeliverSchema,
  rotateWebhookSchema,
  testWebhookSchema,
  WEBHOOK_SCHEMAS,
} from '../schemas/webhooks.js';

type Params = { id: string; deliveryId?: string };

/** Action routes read no body: an empty one with a JSON Content-Type is accepted (json-body.ts). */
const BODYLESS = { bodyless: true };

/**
 * The webhook endpoints of the caller's account (issue 28 §2). Authenticated like /render/
 * (access.ts protects the path), counted against the account's rate limit, and answered with
 * 404 for another account's endpoint. Validation comes before the rate limit (401 → 400 → 429).
 */
export function registerWebhookRoutes(app: FastifyInstance, deps: { webhooks: WebhookService }): void {
  const w = deps.webhooks;
  for (const schema of WEBHOOK_SCHEMAS) app.addSchema(schema);

  /** The caller's account, once its request is counted (access.ts refused signed URLs already). */
  const admit = async (req: FastifyRequest, reply: FastifyReply): Promise<string> =>
    (await app.access.admit(req, reply, () => {})).accountId;
  const params = (req: FastifyRequest) => req.params as Params;

  app.post('/webhooks', documentOnly(createWebhookSchema), async (req, reply) => {
    parseEndpointInput(req.body);
    const created = await w.create(await admit(req, reply), req.body);
    reply.code(201).header('Cache-Control', 'no-store').header('Location', `/webhooks/${created.id}`);
    return created;
  });

  app.get('/webhooks', documentOnly(listWebhooksSchema), async (req, reply) => {
    return { endpoints: await w.list(await admit(req, reply)) };
  });

  app.get('/webhooks/:id', documentOnly(getWebhookSchema), async (req, reply) => {
    return w.get(await admit(req, reply), params(req).id);
  });

  app.delete(
    '/webhooks/:id',
    { ...documentOnly(deleteWebhookSchema), config: BODYLESS },
    async (req, reply) => {
      await w.remove(await admit(req, reply), params(req).id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/webhooks/:id/rotate',
    { ...documentOnly(rotateWebhookSchema), config: BODYLESS },
    async (req, reply) => {
      const rotated = await w.rotate(await admit(req, reply), params(req).id);
      reply.header('Cache-Control', 'no-store');
      return rotated;
    },
  );

  app.post(
    '/webhooks/:id/test',
    { ...documentOnly(testWebhookSchema), config: BODYLESS },
    async (req, reply) => {
      const sent = await w.test(await admit(req, reply), params(req).id);
      return reply.code(202).send(sent);
    },
  );

  app.get('/webhooks/:id/deliveries', documentOnly(listDeliveriesSchema), async (req, reply) => {
    const { cursor, limit } = pageQuery(req.query);
    const accountId = await admit(req, reply);
    return w.deliveries(accountId, params(req).id, {
      ...(cursor !== undefined ? { cursor } : {}),
      ...(limit !== undefined ? { limit } : {}),
    });
  });

  app.post(
    '/webhooks/:id/deliveries/:deliveryId/redeliver',
    { ...documentOnly(redeliverSchema), config: BODYLESS },
    async (req, reply) => {
      const p = params(req);
      const sent = await w.redeliver(await admit(req, reply), p.id, p.deliveryId ?? '');
      return reply.code(202).send(sent);
    },
  );
}

function pageQuery(query: unknown): { cursor?: string; limit?: number } {
  const q = (query ?? {}) as Record<string, unknown>;
  const stray = Object.keys(q).find((k) => k !== 'cursor' && k !== 'limit');
  if (stray !== undefined) {
    throw new AppError(
      'bad_request',
      `Unknown query parameter ${JSON.stringify(stray.slice(0, 40))}; use cursor and limit`,
    );
  }
  const out: { cursor?: string; limit?: number } = {};
  if (typeof q.cursor === 'string' && q.cursor !== '') out.cursor = q.cursor;
  if (q.limit !== undefined) {
    const n = Number(q.limit);
    if (typeof q.limit !== 'string' || !/^\d+$/.test(q.limit) || n < 1 || n > 100) {
      throw new AppError('bad_request', 'limit must be an integer from 1 to 100');
    }
    out.limit = n;
  }
  return out;
}
