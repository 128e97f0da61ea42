import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { randomBase62 } from '../auth/keys.js';
import type { ServerSecrets } from '../auth/secret.js';
import { AppError } from '../errors.js';
import type { JobEvent, JobEventSink } from '../jobs/events.js';
import type { Clock } from '../lib/clock.js';
import { type UrlGuard, UrlRefusedError } from '../net/url-guard.js';
import { type Deliveries, sealContext } from './deliveries.js';
import { eventBody, TEST_EVENT } from './events.js';
import { parseEndpointInput } from './input.js';
import { newWebhookSecret } from './signing.js';
import type { EndpointRecord, WebhookStore } from './store.js';
import { type DeliveryView, deliveryView, type EndpointView, endpointView } from './views.js';

/** How long wants() reuses an answer: an endpoint made or changed counts within this. */
const WANTS_CACHE_MS = 2000;

/**
 * The message id (the `webhook-id`) of event `eventId` for endpoint `endpointId`: the same on
 * every publish of the event, different per endpoint, and opaque (a hash, not the two ids).
 */
export function messageIdOf(eventId: string, endpointId: string): string {
  return `msg_${createHash('sha256').update(`${eventId}\u0000${endpointId}`).digest('base64url').slice(0, 27)}`;
}

/** How long a rotated secret keeps signing beside its successor. */
export const ROTATION_GRACE_MS = 24 * 60 * 60_000;

/** An endpoint with its secret: the only answers that show a secret, once. */
export type EndpointWithSecret = EndpointView & { secret: string };

/** A page of an endpoint's delivery log, newest first. */
export interface DeliveryPage {
  deliveries: DeliveryView[];
  /** Pass as `cursor` for the next page; null on the last. */
  nextCursor: string | null;
}

/**
 * The webhooks area's service: what the HTTP routes, the dashboard and the CLI call, and the
 * jobs area's event sink. Every method takes the caller's account and treats another account's
 * endpoint or message as missing (404), never as forbidden (which would confirm it exists).
 */
export interface WebhookService extends JobEventSink {
  create(accountId: string, input: unknown): Promise<EndpointWithSecret>;
  list(accountId: string): Promise<EndpointView[]>;
  get(accountId: string, id: string): Promise<EndpointView>;
  remove(accountId: string, id: string): Promise<void>;
  rotate(accountId: string, id: string): Promise<EndpointWithSecret>;
  /** Sends a `webhook.test` event to the endpoint (queued like any other). */
  test(accountId: string, id: string): Promise<DeliveryView>;
  deliveries(
    accountId: string,
    id: string,
    opts?: { cursor?: string; limit?: number },
  ): Promise<DeliveryPage>;
  redeliver(accountId: string, id: string, deliveryId: string): Promise<DeliveryView>;
}

export interface WebhookServiceDeps {
  store: WebhookStore;
  secrets: Pick<ServerSecrets, 'seal'>;
  deliveries: Deliveries;
  /** Checks an endpoint's URL when it is made (deliveries check it again at connect time). */
  guard: UrlGuard;
  clock: Clock;
  log: Logger;
  maxEndpoints: number;
}

const MAX_PAGE = 100;

export function createWebhookService(deps: WebhookServiceDeps): WebhookService {
  const { store, clock } = deps;
  /** wants() answers, by account, endpoint and type. */
  const wanted = new Map<string, { yes: boolean; at: number }>();

  /** The enabled endpoints that take `type`: the named one, or any of the account's. */
  const targetsOf = async (accountId: string, type: string, endpointId: string | undefined) => {
    const all = endpointId
      ? [await store.getEndpoint(accountId, endpointId)]
      : await store.listEndpoints(accountId);
    return all.filter(
      (e): e is EndpointRecord => e !== undefined && e.disabledAt === null && e.events.includes(type),
    );
  };

  const endpointOf = async (accountId: string, id: string): Promise<EndpointRecord> => {
    const e = await store.getEndpoint(accountId, id);
    if (!e) throw new AppError('not_found', `No webhook endpoint ${JSON.stringify(id.slice(0, 60))}`);
    return e;
  };

  const withSecret = (e: EndpointRecord, secret: string): EndpointWithSecret => ({
    ...endpointView(e, clock.now()),
    secret,
  });

  return {
    async create(accountId, input) {
      const { url, events } = parseEndpointInput(input);
      await checkUrl(deps.guard, url, deps.log);
      const count = await store.countEndpoints(accountId);
      if (count >= deps.maxEndpoints) {
        throw new AppError(
          'conflict',
          `This account already has ${count} webhook endpoints, the most it may have (${deps.maxEndpoints}); delete one first`,
        );
      }
      const id = `ep_${randomBase62(16)}`;
      const secret = newWebhookSecret();
      const endpoint: EndpointRecord = {
        id,
        accountId,
        url,
        events,
        secretSealed: deps.secrets.seal(secret, sealContext(id)),
        previousSealed: null,
        previousUntil: null,
        disabledAt: null,
        disabledReason: null,
        createdAt: clock.now(),
      };
      await store.insertEndpoint(endpoint);
      return withSecret(endpoint, secret);
    },

    async list(accountId) {
      const now = clock.now();
      return (await store.listEndpoints(accountId)).map((e) => endpointView(e, now));
    },

    async get(accountId, id) {
      return endpointView(await endpointOf(accountId, id), clock.now());
    },

    async remove(accountId, id) {
      if (!(await store.deleteEndpoint(accountId, id))) await endpointOf(accountId, id);
    },

    async rotate(accountId, id) {
      const e = await endpointOf(accountId, id);
      const secret = newWebhookSecret();
      const now = clock.now();
      // Only the secret being replaced keeps signing: a second rotation within 24 h ends the
      // grace of the first one's predecessor (two signatures at most, as receivers expect).
      const next = {
        secretSealed: deps.secrets.seal(secret, sealContext(id)),
        previousSealed: e.secretSealed,
        previousUntil: now + ROTATION_GRACE_MS,
      };
      if (!(await store.setEndpointSecrets(accountId, id, next))) await endpointOf(accountId, id);
      return withSecret({ ...e, ...next }, secret);
    },

    async test(accountId, id) {
      const e = await endpointOf(accountId, id);
      if (e.disabledAt !== null) throw disabled(e);
      const body = eventBody(
        TEST_EVENT,
        { endpointId: e.id, message: 'A test event from Cardshot' },
        clock.now(),
      );
      return deliveryView(await deps.deliveries.send(e, TEST_EVENT, body, 'refuse'), []);
    },

    async deliveries(accountId, id, opts = {}) {
      await endpointOf(accountId, id);
      const limit = Math.min(Math.max(1, opts.limit ?? 20), MAX_PAGE);
      let before: { createdAt: number; id: string } | undefined;
      if (opts.cursor !== undefined) {
        const at = await store.getMessage(accountId, opts.cursor);
        if (!at || at.endpointId !== id)
          throw new AppError(
            'bad_request',
            'cursor is not a delivery of this endpoint; pass the nextCursor of the previous page',
          );
        before = { createdAt: at.createdAt, id: at.id };
      }
      const page = await store.listMessages(id, { limit: limit + 1, ...(before ? { before } : {}) });
      const shown = page.slice(0, limit);
      const attempts = await store.listAttempts(shown.map((m) => m.id));
      return {
        deliveries: shown.map((m) =>
          deliveryView(
            m,
            attempts.filter((a) => a.messageId === m.id),
          ),
        ),
        nextCursor: page.length > limit ? (shown.at(-1)?.id ?? null) : null,
      };
    },

    async redeliver(accountId, id, deliveryId) {
      const e = await endpointOf(accountId, id);
      if (e.disabledAt !== null) throw disabled(e);
      const m = await store.getMessage(accountId, deliveryId);
      if (!m || m.endpointId !== id) {
        throw new AppError(
          'not_found',
          `No delivery ${JSON.stringify(deliveryId.slice(0, 60))} of this endpoint`,
        );
      }
      const next = await deps.deliveries.redeliver(m);
      return deliveryView(next, await store.listAttempts([m.id]));
    },

    async checkEndpoint(accountId, endpointId) {
      const e = await store.getEndpoint(accountId, endpointId);
      if (!e) {
        throw new AppError(
          'bad_request',
          `webhook: no endpoint ${JSON.stringify(endpointId.slice(0, 60))} on this account (see GET /webhooks)`,
        );
      }
      if (e.disabledAt !== null) {
        throw new AppError(
          'bad_request',
          `webhook: endpoint ${e.id} is disabled (its receiver answered 410 Gone); add a new one`,
        );
      }
    },

    async publish(accountId, event: JobEvent) {
      const targets = await targetsOf(accountId, event.type, event.endpointId);
      if (targets.length === 0) return;
      const body = eventBody(event.type, event.data, event.at ?? clock.now());
      for (const e of targets) {
        const id = event.id === undefined ? undefined : messageIdOf(event.id, e.id);
        await deps.deliveries.send(e, event.type, body, 'record', id);
      }
    },

    async wants(accountId, type, endpointId) {
      const key = `${accountId}\u0000${endpointId ?? ''}\u0000${type}`;
      const hit = wanted.get(key);
      if (hit && clock.now() - hit.at < WANTS_CACHE_MS) return hit.yes;
      const yes = (await targetsOf(accountId, type, endpointId)).length > 0;
      if (wanted.size > 10_000) wanted.clear();
      wanted.set(key, { yes, at: clock.now() });
      return yes;
    },
  };
}

function disabled(e: EndpointRecord): AppError {
  return new AppError(
    'conflict',
    `Endpoint ${e.id} is disabled (its receiver answered 410 Gone); add a new one`,
  );
}

/**
 * Refuses a URL the guard would refuse at delivery time, so a mistake shows when the endpoint is
 * made. The message stays generic (which internal names resolve is not the caller's business).
 */
async function checkUrl(guard: UrlGuard, url: string, log: Logger): Promise<void> {
  try {
    await guard.check(url);
  } catch (err) {
    if (!(err instanceof UrlRefusedError)) throw err;
    log.info({ reason: err.reason, detail: err.detail }, 'webhook URL refused');
    const message =
      err.reason === 'port'
        ? 'url must use port 80 or 443 (the default ports of http and https)'
        : 'url must be a public address: Cardshot does not call private, loopback or link-local addresses, or names that do not resolve';
    throw new AppError('bad_request', message, { detail: err.detail });
  }
}
