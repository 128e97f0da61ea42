/**
 * The OpenAPI description of POST /render/url (issue 29 §2): the GET's options as JSON values,
 * derived from the option table, and the credentials only a body may carry. Documentation only:
 * the route parses by hand (render/screenshot/request-body.ts, credentials.ts).
 */
import { type TSchema, Type } from 'typebox';
import { type OptionSpec, SHOT_OPTIONS } from '../../render/screenshot/option-table.js';
import { renderUrl } from './render-url.js';

/** A credential's JSON schema, by its shape. */
const CREDENTIAL: Record<string, TSchema> = {
  headers: Type.Record(Type.String(), Type.String()),
  cookies: Type.Array(
    Type.Object(
      {
        name: Type.String(),
        value: Type.String(),
        path: Type.Optional(Type.String()),
        secure: Type.Optional(Type.Boolean()),
        httpOnly: Type.Optional(Type.Boolean()),
        sameSite: Type.Optional(Type.String({ enum: ['Strict', 'Lax', 'None'] })),
      },
      { additionalProperties: false },
    ),
    { maxItems: 50 },
  ),
  basicAuth: Type.Object(
    { username: Type.String(), password: Type.String() },
    { additionalProperties: false },
  ),
  userAgent: Type.String({ maxLength: 512 }),
};

/** One option as a JSON body field. */
function bodySchemaOf(spec: OptionSpec, query: TSchema | undefined): TSchema {
  const description = spec.doc;
  switch (spec.type) {
    case 'flag':
      return Type.Boolean({ default: spec.on === true, description });
    case 'selectors':
      return Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: 20 })], { description });
    case 'clip':
      return Type.Object(
        { x: Type.Integer(), y: Type.Integer(), width: Type.Integer(), height: Type.Integer() },
        { description },
      );
    case 'credential':
      return { ...CREDENTIAL[spec.shape]!, description };
    default:
      return query ?? Type.String({ description });
  }
}

const query = renderUrl.querystring.properties as Record<string, TSchema>;
// The GET's schema without its query: a `querystring: undefined` key makes Fastify warn at every
// start that the POST route's query schema is missing.
const { querystring: _getQuery, ...getSchema } = renderUrl;

/** POST /render/url. */
export const renderUrlPost = {
  ...getSchema,
  operationId: 'screenshotPost',
  summary: 'Screenshot a web page (JSON body, with credentials)',
  description: `The same capture as GET /render/url, its options in a JSON body. Only a body may carry \`headers\`, \`cookies\`, \`basicAuth\` and \`userAgent\` (a URL is logged, and a signed one is public): they are sent to the page's own origin only, never logged or cached in clear, and such a capture is never shared with another account.

\`\`\`bash
curl -sS -H "x-api-key: $CARDSHOT_KEY" -H 'content-type: application/json' http://localhost:3000/render/url -d '{"url": "https://example.com/", "cookies": [{"name": "session", "value": "abc"}]}' -o page.png
\`\`\``,
  body: Type.Object(
    {
      url: query.url!,
      viewport: query.viewport!,
      waitUntil: query.waitUntil!,
      ...Object.fromEntries(
        (SHOT_OPTIONS as readonly OptionSpec[]).map((spec) => [
          spec.name,
          Type.Optional(bodySchemaOf(spec, query[spec.name])),
        ]),
      ),
      store: query.store!,
      storage: query.storage!,
    },
    { additionalProperties: false },
  ),
};
