/**
 * The OpenAPI description of the jobs API (issue 28 §1). Documentation only: the routes
 * validate by hand (jobs/submission.ts, jobs/items.ts) and their messages are the examples.
 */
import { Type } from 'typebox';
import { MAX_JOB_ITEMS } from '../../auth/plan-jobs.js';
import { errorResponse, REQUEST_ID, RETRY_AFTER } from './common.js';

const tags = ['Jobs'];
const security: Array<Record<string, string[]>> = [{ apiKeyHeader: [] }, { apiKeyQuery: [] }];
const resultSecurity: Array<Record<string, string[]>> = [
  ...security,
  { resultLinkExpires: [], resultLinkSignature: [] },
];
const id = Type.Object({
  id: Type.String({ description: 'The job id (job_…).', examples: ['job_Xb3kq9Lm2Nw8Pz4R'] }),
});
const time = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

const Counts = Type.Object({
  queued: Type.Integer(),
  running: Type.Integer(),
  succeeded: Type.Integer(),
  failed: Type.Integer(),
  canceled: Type.Integer({ description: 'Items that never ran because the job was canceled.' }),
});

export const Job = Type.Object(
  {
    id: Type.String(),
    status: Type.String({
      enum: ['queued', 'running', 'completed', 'failed', 'canceled'],
      description: 'completed: every item ran (some may have failed: see counts); failed: every item failed.',
    }),
    items: Type.Integer({ description: 'Items in the job.' }),
    counts: Counts,
    createdAt: time('When it was submitted.'),
    startedAt: time('When its first item started.'),
    completedAt: time('When its last item ended, or when it was canceled.'),
    expiresAt: time("When it and its results are deleted (the plan's jobs.retentionDays)."),
    resultsUrl: Type.String({
      description:
        'The zip of its finished items: a signed link, valid until expiresAt, fetchable without a key.',
    }),
    webhook: Type.Union([Type.String(), Type.Null()]),
    metadata: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  },
  { $id: 'Job', title: 'Job' },
);

const Item = Type.Object({
  index: Type.Integer({ description: 'Its position in the submitted items, from 0.' }),
  status: Type.String({ enum: ['queued', 'running', 'succeeded', 'failed', 'canceled'] }),
  kind: Type.String({ enum: ['card', 'screenshot', 'site-page'] }),
  error: Type.Optional(
    Type.String({ description: "A failed item's reason, in the synchronous route's words." }),
  ),
  result: Type.Union([
    Type.Object({
      url: Type.String({
        description: 'The image: a signed link, fetchable without a key until the job expires.',
      }),
      contentType: Type.String(),
      bytes: Type.Integer(),
      etag: Type.String({ description: "As the ETag header writes it (quoted): the synchronous render's." }),
      width: Type.Integer(),
      height: Type.Integer(),
    }),
    Type.Null(),
  ]),
});

const notFound = errorResponse("No such job for this account (another account's job is not found either).", {
  not_found: 'No such job',
});
const unauthorized = errorResponse('No key, or a key that is not valid.', {
  unauthorized: 'Missing or invalid API key',
});
const json = (schema: unknown, description: string) => ({
  description,
  headers: REQUEST_ID,
  content: { 'application/json': { schema } },
});

export const submit = {
  tags,
  operationId: 'submitJob',
  summary: 'Submit a job: up to 10,000 cards and screenshots, rendered in the background',
  description: `JSON \`{"items": [...], "webhook"?, "metadata"?}\` or \`text/csv\` with a header row of field names (one item per row; \`?webhook=\` in the query). A card item has the body of POST /render/template; a screenshot item has \`url\` and the query parameters of GET /render/url. Every item is validated before anything is queued. Up to ${MAX_JOB_ITEMS} items (your plan may allow fewer); the body at most 10 MiB. Idempotency-Key: the same key within 24 h answers the same job (200).`,
  security,
  headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ maxLength: 255 })) }),
  body: Type.Object({
    items: Type.Array(Type.Object({}, { additionalProperties: true }), {
      minItems: 1,
      maxItems: MAX_JOB_ITEMS,
    }),
    webhook: Type.Optional(
      Type.String({ description: "A webhook endpoint id (POST /webhooks) to send this job's events to." }),
    ),
    metadata: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: true,
          description: 'Echoed in GET /jobs/:id and every event (at most 4 KiB of JSON).',
        },
      ),
    ),
  }),
  response: {
    202: json(
      Type.Object({
        id: Type.String(),
        status: Type.String(),
        items: Type.Integer(),
        statusUrl: Type.String(),
      }),
      "Queued. Location: the job's URL.",
    ),
    200: json(
      Type.Object({
        id: Type.String(),
        status: Type.String(),
        items: Type.Integer(),
        statusUrl: Type.String(),
      }),
      'The job this Idempotency-Key made earlier.',
    ),
    400: errorResponse('An item (or the body) is not valid: every bad item is named by its index.', {
      items:
        'item 3: title is required; item 7: url must be an absolute http or https URL (for example https://example.com/)',
    }),
    401: unauthorized,
    403: errorResponse('Not on your plan.', {
      items: 'A job on your plan holds at most 100 items (got 150)',
      template: 'item 2: Template not available on your plan',
    }),
    413: errorResponse('The body is over 10 MiB.', { too_large: 'Request body must be at most 10 MiB' }),
    429: errorResponse(
      "The account's waiting items would pass its plan's jobs.maxWaiting.",
      {
        waiting:
          "Your account has 49990 job items waiting; your plan allows 50000, so this job's 100 must wait until some have run",
      },
      { ...REQUEST_ID, ...RETRY_AFTER },
    ),
  },
};

export const list = {
  tags,
  operationId: 'listJobs',
  summary: "Your account's jobs, newest first",
  security,
  querystring: Type.Object({
    cursor: Type.Optional(Type.String()),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  }),
  response: {
    200: json(
      Type.Object({
        jobs: Type.Array(Type.Ref('Job')),
        nextCursor: Type.Union([Type.String(), Type.Null()]),
      }),
      'A page of jobs; pass nextCursor for the next.',
    ),
    401: unauthorized,
  },
};

export const get = {
  tags,
  operationId: 'getJob',
  summary: 'A job: status, counts, results link',
  security,
  params: id,
  response: { 200: json(Type.Ref('Job'), 'The job.'), 401: unauthorized, 404: notFound },
};

export const cancel = {
  tags,
  operationId: 'cancelJob',
  summary: 'Cancel a job: queued items never run, running ones finish',
  security,
  params: id,
  response: {
    200: json(Type.Ref('Job'), 'The job, canceled (or as it ended, if it had).'),
    401: unauthorized,
    404: notFound,
  },
};

export const items = {
  tags,
  operationId: 'listJobItems',
  summary: "A job's items, in order, with their results or errors",
  security,
  params: id,
  querystring: Type.Object({
    status: Type.Optional(Type.String({ enum: ['queued', 'running', 'succeeded', 'failed', 'canceled'] })),
    cursor: Type.Optional(Type.String()),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  }),
  response: {
    200: json(
      Type.Object({ items: Type.Array(Item), nextCursor: Type.Union([Type.String(), Type.Null()]) }),
      'A page of items.',
    ),
    401: unauthorized,
    404: notFound,
  },
};

export const item = {
  tags,
  operationId: 'getJobItem',
  summary: "An item's image: the same bytes and ETag as the synchronous render",
  security: resultSecurity,
  params: Type.Object({ id: Type.String(), index: Type.Integer({ minimum: 0 }) }),
  response: {
    200: {
      description: 'The image.',
      headers: { ...REQUEST_ID, ETag: Type.String() },
      content: { 'image/png': { schema: Type.String({ contentEncoding: 'binary' }) } },
    },
    304: { description: 'If-None-Match matched.' },
    401: errorResponse('No key, or a result link that is not valid or expired.', {
      link: 'This result link is not valid or has expired; ask GET /jobs/:id for a fresh one',
    }),
    404: errorResponse('No such job, or the item has no image (yet).', {
      pending: 'Item 3 has no image: it is queued',
    }),
  },
};

export const zip = {
  tags,
  operationId: 'getJobResultsZip',
  summary: "A zip of the job's finished items, streamed",
  security: resultSecurity,
  params: id,
  response: {
    200: {
      description: 'application/zip; entries named by index (000042.png).',
      headers: REQUEST_ID,
      content: { 'application/zip': { schema: Type.String({ contentEncoding: 'binary' }) } },
    },
    401: unauthorized,
    404: notFound,
  },
};
