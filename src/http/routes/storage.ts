import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseTargetInput } from '../../delivery/input.js';
import type { DeliveryService } from '../../delivery/service.js';
import { documentOnly } from '../schemas/common.js';
import {
  createStorageSchema,
  deleteStorageSchema,
  getStorageSchema,
  listStorageSchema,
  STORAGE_SCHEMAS,
  testStorageSchema,
} from '../schemas/storage.js';

/** Action routes read no body: an empty one with a JSON Content-Type is accepted (json-body.ts). */
const BODYLESS = { bodyless: true };

/**
 * The storage targets of the caller's account (issue 31 §3). Authenticated like /webhooks
 * (access.ts protects the path; a signed URL is refused), counted against the account's rate
 * limit, and answered with 404 for another account's target. Validation comes before the rate
 * limit (401 → 400 → 429).
 */
export function registerStorageRoutes(app: FastifyInstance, deps: { delivery: DeliveryService }): void {
  const d = deps.delivery;
  for (const schema of STORAGE_SCHEMAS) app.addSchema(schema);
  const admit = async (req: FastifyRequest, reply: FastifyReply): Promise<string> =>
    (await app.access.admit(req, reply, () => {})).accountId;
  const id = (req: FastifyRequest) => (req.params as { id: string }).id;

  app.post('/storage', documentOnly(createStorageSchema), async (req, reply) => {
    parseTargetInput(req.body);
    const created = await d.create(await admit(req, reply), req.body);
    reply.code(201).header('Cache-Control', 'no-store').header('Location', `/storage/${created.id}`);
    return created;
  });

  app.get('/storage', documentOnly(listStorageSchema), async (req, reply) => {
    return { targets: await d.list(await admit(req, reply)) };
  });

  app.get('/storage/:id', documentOnly(getStorageSchema), async (req, reply) => {
    return d.get(await admit(req, reply), id(req));
  });

  app.delete(
    '/storage/:id',
    { ...documentOnly(deleteStorageSchema), config: BODYLESS },
    async (req, reply) => {
      await d.remove(await admit(req, reply), id(req));
      return reply.code(204).send();
    },
  );

  app.post(
    '/storage/:id/test',
    { ...documentOnly(testStorageSchema), config: BODYLESS },
    async (req, reply) => {
      return d.test(await admit(req, reply), id(req));
    },
  );
}
