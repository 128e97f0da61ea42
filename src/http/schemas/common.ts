import type {} from '@fastify/swagger';
import type { FastifySchema } from 'fastify';
import { Type } from 'typebox';
import { CONTENT_TYPES } from '../../render/format.js';

/**
 * Pieces shared by the route schemas. The schemas document the API (OpenAPI at /openapi.json)
 * and type it; they do not validate: the routes check input by hand so every refusal keeps its
 * documented message and the 401 → 400 → 403 → 429 order (see `documentOnly`).
 */

/** The one error shape (spec §2). */
export const ErrorBody = Type.Object(
  { error: Type.String({ description: 'What went wrong and how to fix it.' }) },
  { additionalProperties: false, $id: 'Error', title: 'Error' },
);

/** A JSON error response with named examples (message per situation). */
export function errorResponse(description: string, examples: Record<string, string>, headers?: object) {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: {
      'application/json': {
        schema: Type.Ref('Error'),
        examples: Object.fromEntries(
          Object.entries(examples).map(([name, error]) => [name, { summary: error, value: { error } }]),
        ),
      },
    },
  };
}

export const header = (
  description: string,
  example?: string | number,
  type: 'string' | 'integer' = 'string',
) =>
  type === 'integer'
    ? Type.Integer({ description, ...(example !== undefined ? { examples: [example] } : {}) })
    : Type.String({ description, ...(example !== undefined ? { examples: [example] } : {}) });

/** Headers on every answer. */
export const REQUEST_ID = {
  'X-Request-Id': header(
    'The request id (yours when you send a sane X-Request-Id); quote it when reporting a problem.',
    'req_3f2a9c0d1e4b5a6c7d8e',
  ),
};

/** Rate-limit headers on every authenticated answer. */
export const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': header(
    'IETF draft: the plan, its quota q and window w in seconds.',
    '"pro";q=600;w=60',
  ),
  RateLimit: header(
    'IETF draft: r requests remaining, t seconds until one more is admitted.',
    '"pro";r=599;t=60',
  ),
  'X-RateLimit-Limit': header('The quota of the window.', 600, 'integer'),
  'X-RateLimit-Remaining': header('Requests remaining now.', 599, 'integer'),
  'X-RateLimit-Reset': header(
    'Unix time (seconds) at which one more request is admitted.',
    1767225660,
    'integer',
  ),
};

export const RETRY_AFTER = {
  'Retry-After': header('Seconds to wait before retrying.', 1, 'integer'),
};

/** The conditional request header of the render routes. */
export const IF_NONE_MATCH = {
  'if-none-match': Type.Optional(
    Type.String({ description: 'An ETag from an earlier answer: 304 without rendering when it matches.' }),
  ),
};

/** Headers of an image answer. */
export function pngHeaders(cacheControl: string, extra: Record<string, unknown> = {}) {
  return {
    ...REQUEST_ID,
    'Cache-Control': header('How long the image may be cached, by browsers and CDNs.', cacheControl),
    ETag: header(
      'Strong validator: send it back in If-None-Match to get 304.',
      '"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"',
    ),
    'X-Cache': Type.String({
      enum: ['HIT', 'MISS'],
      description: 'HIT: served from the cache, nothing rendered.',
    }),
    'Server-Timing': header('Phase durations in ms.', 'cache;dur=0.1, render;dur=8.4, total;dur=9.0'),
    ...extra,
    ...RATE_LIMIT_HEADERS,
  };
}

/** A 200 image answer: PNG by default, or the `format` asked for. */
export function imageResponse(description: string, headers: object, extraTypes: readonly string[] = []) {
  return {
    description,
    headers,
    content: Object.fromEntries(
      [...Object.values(CONTENT_TYPES), ...extraTypes].map((type) => [
        type,
        { schema: Type.String({ contentMediaType: type, contentEncoding: 'binary' }) },
      ]),
    ),
  };
}

/** The three ways to authenticate a /render/ request (components.securitySchemes). */
export const SECURITY_SCHEMES = {
  apiKeyHeader: {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
    description: 'The normal way: `x-api-key: cs_production_…`.',
  },
  apiKeyQuery: {
    type: 'apiKey',
    in: 'query',
    name: 'api_key',
    description:
      'Possible but discouraged (URLs end up in logs and Referer headers): only for tools that cannot send headers, never in a page.',
  },
  signedUrlKeyId: {
    type: 'apiKey',
    in: 'query',
    name: 'kid',
    description:
      'Signed URL, part 1 of 3: the key id (key_…). GET and HEAD only; see docs/api.md#signed-urls.',
  },
  signedUrlExpiry: {
    type: 'apiKey',
    in: 'query',
    name: 'exp',
    description: 'Signed URL, part 2 of 3: expiry in unix seconds.',
  },
  signedUrlSignature: {
    type: 'apiKey',
    in: 'query',
    name: 'sig',
    description:
      'Signed URL, part 3 of 3: base64url HMAC-SHA-256, under the key\'s signing secret, of "GET\\n<path>\\n<sorted, RFC 3986-encoded query without sig>".',
  },
  resultLinkExpires: {
    type: 'apiKey',
    in: 'query',
    name: 'expires',
    description:
      'A job result link, part 1 of 2: expiry in unix seconds (the links GET /jobs/:id hands out).',
  },
  resultLinkSignature: {
    type: 'apiKey',
    in: 'query',
    name: 'signature',
    description: 'A job result link, part 2 of 2: its signature.',
  },
  metricsToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'CARDSHOT_METRICS_TOKEN, for GET /metrics only.',
  },
} as const;

/** Security requirements: any one of these (the signed URL needs all three of its parts). */
export function renderSecurity(method: 'GET' | 'POST') {
  const base: Array<Record<string, string[]>> = [{ apiKeyHeader: [] }, { apiKeyQuery: [] }];
  if (method === 'GET') base.push({ signedUrlKeyId: [], signedUrlExpiry: [], signedUrlSignature: [] });
  return base;
}

/** 401, 403 and 429 as every /render/ route answers them (spec §7, word for word). */
export function accessErrors(forbidden: Record<string, string>, tooMany: Record<string, string> = {}) {
  return {
    401: errorResponse('No key, or a key or signed URL that is not valid (the reason is logged, not told).', {
      unauthorized: 'Missing or invalid API key',
    }),
    403: errorResponse('Not on your plan.', forbidden, { ...REQUEST_ID, ...RATE_LIMIT_HEADERS }),
    429: errorResponse(
      Object.keys(tooMany).length === 0
        ? 'The account used up its rate limit; retry after Retry-After seconds.'
        : "The account used up its rate limit, or its plan's share of captures in progress; retry after Retry-After seconds.",
      { rate_limited: 'Rate limit exceeded', ...tooMany },
      { ...REQUEST_ID, ...RETRY_AFTER, ...RATE_LIMIT_HEADERS },
    ),
  };
}

/**
 * Route options that attach a schema for documentation only: Fastify would otherwise compile
 * it with Ajv and refuse input with Ajv's messages before our own checks run.
 */
export function documentOnly(schema: FastifySchema) {
  return {
    schema,
    validatorCompiler: () => () => true,
    // Error bodies are plain { error } objects; the default serializer keeps them byte for byte.
    serializerCompiler: () => (data: unknown) => JSON.stringify(data),
  };
}

/** The management routes (webhooks, storage, fonts, jobs, unfurl …): a key, in the header or the query. */
export const KEY_SECURITY: Array<Record<string, string[]>> = [{ apiKeyHeader: [] }, { apiKeyQuery: [] }];

/** The empty 204 answer of a key-authenticated DELETE. */
export const DELETED_RESPONSE = {
  description: 'Deleted.',
  headers: { ...REQUEST_ID, ...RATE_LIMIT_HEADERS },
};

/** A JSON answer of a key-authenticated route, with the request id and rate-limit headers. */
export function jsonResponse(description: string, schema: unknown) {
  return {
    description,
    headers: { ...REQUEST_ID, ...RATE_LIMIT_HEADERS },
    content: { 'application/json': { schema } },
  };
}
