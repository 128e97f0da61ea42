/**
 * The OpenAPI description of the webhook endpoints' routes. Documentation only: the routes
 * validate by hand (webhooks/input.ts) and these examples are their messages.
 */
import { Type } from 'typebox';
import { WEBHOOK_EVENTS } from '../../webhooks/events.js';
import { MAX_URL_LENGTH } from '../../webhooks/input.js';
import {
  DELETED_RESPONSE,
  errorResponse,
  jsonResponse,
  KEY_SECURITY,
  RATE_LIMIT_HEADERS,
  REQUEST_ID,
  RETRY_AFTER,
} from './common.js';

const Endpoint = Type.Object(
  {
    id: Type.String({ examples: ['ep_3f2a9c0d1e4b5a6c'] }),
    url: Type.String({ format: 'uri', maxLength: MAX_URL_LENGTH }),
    events: Type.Array(Type.String({ enum: [...WEBHOOK_EVENTS] })),
    status: Type.String({
      enum: ['active', 'disabled'],
      description: 'disabled: its receiver answered 410 Gone.',
    }),
    disabledAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    disabledReason: Type.Union([Type.String(), Type.Null()]),
    previousSecretExpiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'After a rotation: until when the replaced secret still signs beside the new one.',
    }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'WebhookEndpoint', title: 'WebhookEndpoint' },
);

const EndpointWithSecret = Type.Object({
  ...Endpoint.properties,
  secret: Type.String({
    description: 'The signing secret (`whsec_…`), shown in this answer only: store it now.',
    examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
  }),
});

const Attempt = Type.Object({
  attempt: Type.Integer({ minimum: 0 }),
  at: Type.String({ format: 'date-time' }),
  durationMs: Type.Integer({ minimum: 0 }),
  status: Type.Union([Type.Integer(), Type.Null()], {
    description: "The receiver's HTTP status; null when none came.",
  }),
  response: Type.String({ description: 'The first 1 KB of the answer.' }),
  error: Type.Union([Type.String(), Type.Null()]),
});

const Delivery = Type.Object(
  {
    id: Type.String({
      description: 'The webhook-id header: the same on every attempt.',
      examples: ['msg_3f2a9c0d1e4b5a6c7d8e'],
    }),
    type: Type.String({ examples: ['job.completed'] }),
    status: Type.String({ enum: ['pending', 'succeeded', 'failed'] }),
    createdAt: Type.String({ format: 'date-time' }),
    nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    attempts: Type.Array(Attempt),
  },
  { $id: 'WebhookDelivery', title: 'WebhookDelivery' },
);

const security = KEY_SECURITY;
const tags = ['Webhooks'];
const idParam = Type.Object({ id: Type.String({ description: 'The endpoint id (ep_…).' }) });

const json = jsonResponse;

const unauthorized = errorResponse(
  'No key, or a key that is not valid (a signed URL does not manage webhooks).',
  {
    unauthorized: 'Missing or invalid API key',
  },
);
const notFound = errorResponse(
  "No such endpoint on this account (another account's endpoints read as missing).",
  {
    missing: 'No webhook endpoint "ep_3f2a9c0d1e4b5a6c"',
  },
);
const tooMany = errorResponse(
  'The rate limit, or the bound on deliveries waiting for this account.',
  {
    rate_limited: 'Rate limit exceeded',
    waiting:
      'This account has 1000 webhook deliveries waiting, the most it may have; retry once they are delivered',
  },
  { ...REQUEST_ID, ...RETRY_AFTER, ...RATE_LIMIT_HEADERS },
);

export const createWebhookSchema = {
  operationId: 'createWebhook',
  tags,
  security,
  summary: 'Add a webhook endpoint (its secret is shown once)',
  description:
    'Events are POSTed to `url` signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The URL must be http(s), public (not loopback, private or link-local) and at most 2,048 characters. `events` defaults to the three job events.\n\n```bash\ncurl -sS -X POST http://localhost:3000/webhooks -H "x-api-key: $CARDSHOT_KEY" \\\n  -H \'content-type: application/json\' -d \'{"url":"https://example.com/hooks/cardshot","events":["job.completed"]}\'\n```',
  body: Type.Object({
    url: Type.String({ maxLength: MAX_URL_LENGTH, examples: ['https://example.com/hooks/cardshot'] }),
    events: Type.Optional(Type.Array(Type.String({ enum: [...WEBHOOK_EVENTS] }), { minItems: 1 })),
  }),
  response: {
    201: json("Created. `secret` appears here and in a rotation's answer only.", EndpointWithSecret),
    400: errorResponse('The body is not usable.', {
      url: 'url must be a public address: Cardshot does not call private, loopback or link-local addresses, or names that do not resolve',
      events:
        'events: "job.done" is not an event; use job.completed, job.failed, job.canceled, render.succeeded, render.failed, delivery.succeeded, delivery.failed',
    }),
    401: unauthorized,
    409: errorResponse('The account has as many endpoints as it may.', {
      full: 'This account already has 10 webhook endpoints, the most it may have (10); delete one first',
    }),
    429: tooMany,
  },
};

export const listWebhooksSchema = {
  operationId: 'listWebhooks',
  tags,
  security,
  summary: "The account's webhook endpoints (never their secrets)",
  response: {
    200: json(
      'The endpoints, oldest first.',
      Type.Object({ endpoints: Type.Array(Type.Ref('WebhookEndpoint')) }),
    ),
    401: unauthorized,
    429: tooMany,
  },
};

export const getWebhookSchema = {
  operationId: 'getWebhook',
  tags,
  security,
  summary: 'One webhook endpoint',
  params: idParam,
  response: {
    200: json('The endpoint.', Type.Ref('WebhookEndpoint')),
    401: unauthorized,
    404: notFound,
    429: tooMany,
  },
};

export const deleteWebhookSchema = {
  operationId: 'deleteWebhook',
  tags,
  security,
  summary: 'Delete a webhook endpoint with its delivery log (attempts not yet made are dropped)',
  params: idParam,
  response: {
    204: DELETED_RESPONSE,
    401: unauthorized,
    404: notFound,
    429: tooMany,
  },
};

export const rotateWebhookSchema = {
  operationId: 'rotateWebhookSecret',
  tags,
  security,
  summary: 'Give the endpoint a new secret; the old one still signs for 24 h',
  description:
    'For 24 hours each delivery carries two signatures, space-separated in `webhook-signature`: one under the new secret, one under the old. Deploy the new secret to the receiver within that time.',
  params: idParam,
  response: {
    200: json('The endpoint with its new secret, shown once.', EndpointWithSecret),
    401: unauthorized,
    404: notFound,
    429: tooMany,
  },
};

export const testWebhookSchema = {
  operationId: 'testWebhook',
  tags,
  security,
  summary: 'Send a webhook.test event to the endpoint',
  params: idParam,
  response: {
    202: json('Queued; follow it in the delivery log.', Type.Ref('WebhookDelivery')),
    401: unauthorized,
    404: notFound,
    409: errorResponse('The endpoint is disabled.', {
      disabled: 'Endpoint ep_3f2a9c0d1e4b5a6c is disabled (its receiver answered 410 Gone); add a new one',
    }),
    429: tooMany,
  },
};

export const listDeliveriesSchema = {
  operationId: 'listWebhookDeliveries',
  tags,
  security,
  summary: "The endpoint's delivery log, newest first, with every attempt",
  params: idParam,
  querystring: Type.Object({
    cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  }),
  response: {
    200: json(
      'A page of deliveries.',
      Type.Object({
        deliveries: Type.Array(Type.Ref('WebhookDelivery')),
        nextCursor: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
    400: errorResponse('A bad cursor or limit.', { limit: 'limit must be an integer from 1 to 100' }),
    401: unauthorized,
    404: notFound,
    429: tooMany,
  },
};

export const redeliverSchema = {
  operationId: 'redeliverWebhook',
  tags,
  security,
  summary: 'Send a delivery again (same webhook-id, a new 24-hour series of attempts)',
  params: Type.Object({
    id: Type.String({ description: 'The endpoint id (ep_…).' }),
    deliveryId: Type.String({ description: 'The delivery id (msg_…).' }),
  }),
  response: {
    202: json('Queued.', Type.Ref('WebhookDelivery')),
    401: unauthorized,
    404: notFound,
    409: errorResponse('Still being attempted, or the endpoint is disabled.', {
      pending: 'This delivery is still being attempted; redeliver it once it has succeeded or failed',
    }),
    429: tooMany,
  },
};

/** Shared schemas the routes refer to by name. */
export const WEBHOOK_SCHEMAS = [Endpoint, Delivery];
