import { Type } from 'typebox';
import { IMAGE_FORMATS } from '../../render/format.js';
import { TEMPLATE_CACHE_CONTROL } from '../cache-control.js';
import {
  accessErrors,
  errorResponse,
  IF_NONE_MATCH,
  imageResponse,
  pngHeaders,
  REQUEST_ID,
  RETRY_AFTER,
  renderSecurity,
} from './common.js';

/**
 * The schemas of the /render/ routes. The card fields come from the template registry and are
 * written into the document when it is served (openapi-templates.ts); the route schemas here
 * hold what every card request shares.
 */

/** `format` and `quality`: the image format of the answer, on both render routes. */
export const OUTPUT_PROPERTIES = {
  format: Type.Optional(
    Type.String({
      enum: [...IMAGE_FORMATS],
      default: 'png',
      description:
        'The image format: png (the default), jpeg, webp or avif. Content-Type follows (image/png, image/jpeg, image/webp, image/avif).',
      examples: ['webp'],
    }),
  ),
  quality: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100,
      description:
        "Quality of a jpeg, webp or avif (defaults 80, 80 and 50, sharp's own); refused with png. A lower number, a smaller file.",
      examples: [80],
    }),
  ),
};

/**
 * The JSON body as the route declares it: `template` and anything else. The document served
 * replaces it with one variant per template, from the registry.
 */
const TemplateBody = Type.Object(
  {
    template: Type.String({
      description: 'The template; its fields follow (see the variants).',
      examples: ['blog'],
    }),
  },
  { additionalProperties: true },
);

/** `v` on a GET card URL. */
export const TEMPLATE_VERSION_PARAM = {
  name: 'v',
  schema: Type.String({
    pattern: '^[A-Za-z0-9._-]{1,64}$',
    description:
      'A version you choose (v=2), to make crawlers and CDNs fetch the card again after you change its design: it changes the URL, not the card or its ETag.',
    examples: ['2'],
  }),
};

const inputErrors = {
  invalid_json: 'Request body is not valid JSON',
  unknown_field:
    'Unknown field "subTitle" (did you mean "subtitle"?). Allowed: template, title, subtitle, brand, imageUrl, size, theme, format, quality',
  missing: 'title is required',
  unknown_template: 'template must be one of: blog, product, saas (got "blgo")',
  too_long: 'title must be at most 200 characters (got 201)',
  bad_image_url: 'imageUrl must be an absolute http or https URL',
  format: 'format must be one of: png, jpeg, webp, avif (got "gif")',
  quality: 'quality must be a whole number from 1 to 100 (got "0")',
  quality_png: 'quality applies to jpeg, webp and avif only; leave it out, or add format=jpeg, webp or avif',
};

function templateResponses(method: 'GET' | 'POST') {
  const busy = errorResponse(
    'The render queue is full, or API keys cannot be checked right now.',
    {
      busy: 'The template renderer is busy; retry shortly',
      keys: 'API keys cannot be checked right now; retry shortly',
    },
    { ...REQUEST_ID, ...RETRY_AFTER },
  );
  return {
    200: imageResponse(
      'The card (1200×630 unless `size` says otherwise), a PNG unless `format` asked for another.',
      pngHeaders(TEMPLATE_CACHE_CONTROL),
    ),
    304: {
      description: 'If-None-Match matched the ETag: nothing was rendered, no body.',
      headers: {
        ETag: pngHeaders(TEMPLATE_CACHE_CONTROL).ETag,
        'Cache-Control': pngHeaders(TEMPLATE_CACHE_CONTROL)['Cache-Control'],
      },
    },
    400: errorResponse(
      'The input is not valid; the message names the field and the fix.',
      method === 'POST' ? inputErrors : { ...inputErrors, repeated: 'title must be given once' },
    ),
    ...accessErrors({ template: 'Template not available on your plan' }),
    ...(method === 'POST'
      ? {
          413: errorResponse('The body is larger than CARDSHOT_BODY_LIMIT_BYTES.', {
            too_large: 'Request body must be at most 16 KiB',
          }),
          415: errorResponse('The body is not JSON.', {
            media_type: 'Content-Type must be application/json',
          }),
        }
      : {}),
    422: errorResponse('imageUrl is well formed but cannot be used.', {
      refused: 'imageUrl points to an address that is not allowed',
      timeout: 'imageUrl timed out after 5 s',
      too_large: 'imageUrl is larger than 10 MB',
      not_image: 'imageUrl is not a supported image (PNG, JPEG, WebP, GIF or AVIF)',
      http_status: 'imageUrl answered HTTP 404',
    }),
    500: errorResponse('A bug on our side, logged with the request id.', {
      internal: 'Internal server error',
    }),
    503: busy,
  };
}

const TEMPLATE_DESCRIPTION = `Draws a card from a template: the built-ins \`blog\` (editorial, serif headline), \`product\` (split layout with the product photo) and \`saas\` (dark launch card with the artwork as a browser window), or a template file of the server's own. Each template declares its fields, the sizes it lays out at (\`size\`, default its first) and whether it draws \`brand\` and \`imageUrl\`: the request body has one variant per template, listing exactly that.

Text is normalised (NFC, control characters removed, white space folded and trimmed); an empty optional field is the same as leaving it out; \`brand\` and \`imageUrl\` are accepted and ignored by templates that do not draw them. Unknown fields are refused. Checked in this order: credentials (401), input (400/413/415), plan (403), rate limit (429), then cache and render.

Besides the template's fields: \`response=json\` answers \`{"image": {url, contentType, width, height, bytes, etag}}\` instead of the image (\`url\` is the same card, signed for an hour); with it, \`store=s3\` (and \`storage=st_…\` when the account has several targets) uploads the card to the account's storage target first and adds \`"storage": {bucket, key, url, etag}\` (502, or 504 on a time-out, with the storage's error code when the upload fails). See docs/storage.md.`;

/** POST /render/template. */
export const renderTemplatePost = {
  operationId: 'renderTemplate',
  tags: ['Render'],
  summary: 'Render a social card (JSON body)',
  description: `${TEMPLATE_DESCRIPTION}

\`\`\`bash
curl -sS -X POST http://localhost:3000/render/template \\
  -H "x-api-key: $CARDSHOT_KEY" -H 'Content-Type: application/json' \\
  -d '{"template":"blog","title":"How we cut our build time in half","brand":"Acme Engineering"}' -o card.png
\`\`\``,
  security: renderSecurity('POST'),
  headers: Type.Object(IF_NONE_MATCH),
  body: TemplateBody,
  response: templateResponses('POST'),
};

/** GET /render/template. */
export const renderTemplateGet = {
  operationId: 'renderTemplateByUrl',
  tags: ['Render'],
  summary: 'Render a social card (query parameters; for og:image tags)',
  description: `The same fields as query parameters, the same answers. Use it where only a URL can be given, such as \`<meta property="og:image">\`, with a signed URL (kid, exp, sig) so no key appears in the page. A parameter given twice is refused. HEAD answers with the headers only.

\`\`\`bash
curl -sS -H "x-api-key: $CARDSHOT_KEY" \\
  'http://localhost:3000/render/template?template=saas&title=Ship%20faster&brand=Acme' -o card.png
\`\`\``,
  security: renderSecurity('GET'),
  headers: Type.Object(IF_NONE_MATCH),
  // Replaced in the document served by the registry's parameters (openapi-templates.ts).
  querystring: Type.Object(
    { template: TemplateBody.properties.template, v: Type.Optional(TEMPLATE_VERSION_PARAM.schema) },
    { additionalProperties: true },
  ),
  response: templateResponses('GET'),
};
