/**
 * The last pass over the generated OpenAPI document: what every answer has in common is written
 * here once instead of in each route's schema, so no route can forget it. Linters (Redocly's
 * recommended rules, run by test/http/openapi.test.ts) and generated clients read these facts:
 * public operations say `security: []`, a 304 has no body, every answer carries X-Request-Id,
 * every error says `Cache-Control: no-store`, and the answers Cardshot gives on any path (405,
 * 431) are described (404, for paths it does not list, is in the document's description).
 */

type Json = Record<string, unknown>;
type Response = { description: string; headers?: Json; content?: Json };
type Operation = { security?: unknown[]; responses?: Record<string, Response> };

const REQUEST_ID_HEADER = {
  description: 'The request id (yours when you send a sane X-Request-Id); quote it when reporting a problem.',
  schema: { type: 'string', examples: ['req_3f2a9c0d1e4b5a6c7d8e'] },
};
const NO_STORE_HEADER = {
  description: 'Errors are never cached.',
  schema: { type: 'string', const: 'no-store' },
};

const errorJson = (example: string) => ({
  'application/json': { schema: { $ref: '#/components/schemas/Error' }, example: { error: example } },
});

/** Answers any operation may give before its handler runs. */
const COMMON_RESPONSES: Record<string, Response> = {
  405: {
    description: 'The path exists but not for this method; `Allow` lists the methods it takes.',
    headers: {
      Allow: {
        description: 'The methods this path takes.',
        schema: { type: 'string', examples: ['GET, HEAD'] },
      },
    },
    content: errorJson('Method DELETE is not allowed on /healthz; use GET or HEAD'),
  },
  431: {
    description: 'The request headers are larger than the server accepts (16 KiB).',
    content: errorJson('Request headers are too large'),
  },
};

/** Finishes the document in place and returns it (see the file comment). */
export function finishOpenApiDocument<T extends Json>(doc: T): T {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const ops of Object.values(paths)) {
    for (const [method, op] of Object.entries(ops)) finishOperation(method, op);
  }
  return doc;
}

function finishOperation(method: string, op: Operation): void {
  // Operations without a scheme of their own are public: say so, rather than leaving a reader
  // (or a linter) to guess whether a global requirement was forgotten.
  if (op.security === undefined) op.security = [];
  const responses = op.responses ?? {};
  op.responses = responses;
  for (const [status, response] of Object.entries(COMMON_RESPONSES)) {
    responses[status] ??= structuredClone(response);
  }
  for (const [status, response] of Object.entries(responses)) {
    const code = Number(status);
    // A 304 and every HEAD answer have no body (RFC 9110); swagger's default adds one.
    if (code === 304 || method === 'head') delete response.content;
    const headers = response.headers ?? {};
    response.headers = headers;
    headers['X-Request-Id'] ??= REQUEST_ID_HEADER;
    if (code >= 400) headers['Cache-Control'] ??= NO_STORE_HEADER;
  }
}
