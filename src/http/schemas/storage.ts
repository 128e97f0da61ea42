/**
 * The OpenAPI description of the storage targets' routes. Documentation only: the routes
 * validate by hand (delivery/input.ts) and these examples are their messages.
 */
import { Type } from 'typebox';
import { DEFAULT_JOB_TEMPLATE, DEFAULT_SYNC_TEMPLATE, PLACEHOLDERS } from '../../delivery/paths.js';
import {
  DELETED_RESPONSE,
  errorResponse,
  jsonResponse,
  KEY_SECURITY,
  RATE_LIMIT_HEADERS,
  REQUEST_ID,
  RETRY_AFTER,
} from './common.js';

const placeholders = Object.entries(PLACEHOLDERS)
  .map(([name, doc]) => `\`{${name}}\` ${doc}`)
  .join('; ');

const Target = Type.Object(
  {
    id: Type.String({ examples: ['st_3f2a9c0d1e4b5a6c'] }),
    name: Type.String({ description: 'A label (the bucket unless given).' }),
    endpoint: Type.String({ format: 'uri', examples: ['https://s3.eu-west-1.amazonaws.com'] }),
    region: Type.String({ examples: ['eu-west-1'] }),
    bucket: Type.String({ examples: ['my-cards'] }),
    prefix: Type.String({
      description: 'Put before every key; ends with / unless empty.',
      examples: ['cards/'],
    }),
    pathTemplate: Type.String({
      description: `A job item's key after the prefix. ${placeholders}.`,
      examples: [DEFAULT_JOB_TEMPLATE],
    }),
    syncPathTemplate: Type.String({
      description: "A synchronous render's key after the prefix ({job} and {index} have no value there).",
      examples: [DEFAULT_SYNC_TEMPLATE],
    }),
    pathStyle: Type.Boolean({ description: 'true: endpoint/bucket/key; false: bucket.endpoint/key.' }),
    accessKeyId: Type.String({ examples: ['AKIAIOSFODNN7EXAMPLE'] }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'StorageTarget', title: 'StorageTarget' },
);

const TestResult = Type.Object({
  ok: Type.Boolean(),
  code: Type.Union([Type.String(), Type.Null()], {
    description:
      "The storage's error code (NoSuchBucket, InvalidAccessKeyId, SignatureDoesNotMatch, AccessDenied, Timeout, EndpointRefused …).",
  }),
  error: Type.Union([Type.String(), Type.Null()], {
    examples: ['NoSuchBucket: The specified bucket does not exist (1 attempt)'],
  }),
  durationMs: Type.Integer({ minimum: 0 }),
});

const security = KEY_SECURITY;
const tags = ['Storage'];
const idParam = Type.Object({ id: Type.String({ description: 'The target id (st_…).' }) });
const json = jsonResponse;
const unauthorized = errorResponse(
  'No key, or a key that is not valid (a signed URL does not manage storage).',
  {
    unauthorized: 'Missing or invalid API key',
  },
);
const notFound = errorResponse(
  "No such target on this account (another account's targets read as missing).",
  {
    missing: 'No storage target "st_3f2a9c0d1e4b5a6c"',
  },
);
const tooMany = errorResponse(
  'The rate limit, or (test) the uploads this account has in flight.',
  { rate_limited: 'Rate limit exceeded' },
  { ...REQUEST_ID, ...RETRY_AFTER, ...RATE_LIMIT_HEADERS },
);

export const createStorageSchema = {
  operationId: 'createStorageTarget',
  tags,
  security,
  summary: 'Add an S3-compatible storage target (its secret is never shown again)',
  description:
    'Renders with `store=s3` and jobs with `"store": "s3"` are uploaded here. The endpoint must be http(s) and public (not loopback, private or link-local) on port 443 or 80, unless the operator lists it in CARDSHOT_STORAGE_ALLOW_PRIVATE_HOSTS. The secret access key is stored encrypted with the server secret and never answered or logged.',
  body: Type.Object({
    endpoint: Type.String({ examples: ['https://s3.eu-west-1.amazonaws.com'] }),
    bucket: Type.String({ examples: ['my-cards'] }),
    accessKeyId: Type.String(),
    secretAccessKey: Type.String({ writeOnly: true }),
    region: Type.Optional(Type.String({ default: 'us-east-1' })),
    name: Type.Optional(Type.String({ maxLength: 100 })),
    prefix: Type.Optional(Type.String({ default: '' })),
    pathTemplate: Type.Optional(Type.String({ default: DEFAULT_JOB_TEMPLATE })),
    syncPathTemplate: Type.Optional(Type.String({ default: DEFAULT_SYNC_TEMPLATE })),
    pathStyle: Type.Optional(Type.Boolean({ default: true })),
  }),
  response: {
    201: json('Created.', Type.Ref('StorageTarget')),
    400: errorResponse('The body is not usable.', {
      endpoint:
        'endpoint must be a public address: Cardshot does not connect to private, loopback or link-local addresses, or names that do not resolve, unless the operator allows the host (CARDSHOT_STORAGE_ALLOW_PRIVATE_HOSTS)',
      bucket:
        'bucket must be 3 to 63 lower case letters, digits, dots and hyphens, starting and ending with a letter or digit',
      template:
        'pathTemplate: {foo} is not a placeholder; use {job}, {index}, {id}, {name}, {ext}, {date}, {etag}',
    }),
    401: unauthorized,
    409: errorResponse('The account has as many targets as it may.', {
      full: 'This account already has 10 storage targets, the most it may have (10); delete one first',
    }),
    429: tooMany,
  },
};

export const listStorageSchema = {
  operationId: 'listStorageTargets',
  tags,
  security,
  summary: "The account's storage targets (never their secrets)",
  response: {
    200: json('The targets, oldest first.', Type.Object({ targets: Type.Array(Type.Ref('StorageTarget')) })),
    401: unauthorized,
    429: tooMany,
  },
};

export const getStorageSchema = {
  operationId: 'getStorageTarget',
  tags,
  security,
  summary: 'One storage target',
  params: idParam,
  response: {
    200: json('The target.', Type.Ref('StorageTarget')),
    401: unauthorized,
    404: notFound,
    429: tooMany,
  },
};

export const deleteStorageSchema = {
  operationId: 'deleteStorageTarget',
  tags,
  security,
  summary: 'Delete a storage target (objects already stored stay in the bucket)',
  params: idParam,
  response: {
    204: DELETED_RESPONSE,
    401: unauthorized,
    404: notFound,
    429: tooMany,
  },
};

export const testStorageSchema = {
  operationId: 'testStorageTarget',
  tags,
  security,
  summary: "Write a small object to the target and delete it; the storage's error code if it cannot",
  params: idParam,
  response: {
    200: json('Whether the write and delete worked.', TestResult),
    401: unauthorized,
    404: notFound,
    429: tooMany,
  },
};

/** Shared schemas the routes refer to by name. */
export const STORAGE_SCHEMAS = [Target];

/** `store` and `storage` as render parameters (GET query, POST body). */
export const STORE_PARAMS = {
  store: Type.Optional(
    Type.String({
      enum: ['s3'],
      description:
        "s3: upload the render to the account's storage target first (POST /storage); needs response=json, whose answer then has storage: {bucket, key, url, etag}. 502 (504 on a time-out) with the storage's error code when the upload fails.",
    }),
  ),
  storage: Type.Optional(
    Type.String({
      pattern: '^st_[A-Za-z0-9]{1,40}$',
      description: 'With store=s3: the target (st_…) when the account has several.',
    }),
  ),
};

/** The storage object a render's JSON answer gives with store=s3. */
export const StoredObjectSchema = Type.Object(
  {
    bucket: Type.String({ examples: ['my-cards'] }),
    key: Type.String({ examples: ['2026-11-28/req_3f2a9c0d.png'] }),
    url: Type.String({ format: 'uri', description: "The object's address (not signed)." }),
    etag: Type.Union([Type.String(), Type.Null()], { description: "The storage's ETag of the object." }),
  },
  { description: 'With store=s3: where the render was stored.' },
);
