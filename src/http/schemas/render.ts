import { Type } from 'typebox';
import { WAIT_UNTIL } from '../../render/screenshot/capture.js';
import { NOT_READY_MESSAGE } from '../../render/screenshot/refusals.js';
import { DEFAULT_WAIT_UNTIL, URL_MAX_LENGTH } from '../../render/screenshot/request.js';
import { TEMPLATE_NAMES } from '../../render/template/registry.js';
import { FIELDS } from '../../render/template/request.js';
import { TEMPLATE_CACHE_CONTROL } from '../cache-control.js';
import {
  accessErrors,
  errorResponse,
  pngHeaders,
  pngResponse,
  REQUEST_ID,
  RETRY_AFTER,
  renderSecurity,
} from './common.js';

/**
 * The schemas of the /render/ routes, built from the same field table the hand-written
 * validation uses (render/template/request.ts), so limits and descriptions cannot drift.
 */
const text = (name: keyof typeof FIELDS, example: string) =>
  Type.String({
    maxLength: FIELDS[name].maxLength,
    description: FIELDS[name].description,
    examples: [example],
  });

/** The card fields, as a JSON body (POST) or query parameters (GET). */
export const TemplateFields = Type.Object(
  {
    template: Type.String({
      enum: [...TEMPLATE_NAMES],
      description: FIELDS.template.description,
      examples: ['blog'],
    }),
    title: text('title', 'How we cut our build time in half'),
    subtitle: Type.Optional(text('subtitle', 'A field guide to caching in CI')),
    brand: Type.Optional(text('brand', 'Acme Engineering')),
    imageUrl: Type.Optional(
      Type.String({
        ...{ maxLength: FIELDS.imageUrl.maxLength, description: FIELDS.imageUrl.description },
        format: 'uri',
        examples: ['https://example.com/chair.jpg'],
      }),
    ),
  },
  { additionalProperties: false },
);

const inputErrors = {
  invalid_json: 'Request body is not valid JSON',
  unknown_field:
    'Unknown field "subTitle" (did you mean "subtitle"?). Allowed: template, title, subtitle, brand, imageUrl',
  missing: 'title is required',
  unknown_template: 'template must be one of: blog, product, saas (got "blgo")',
  too_long: 'title must be at most 200 characters (got 201)',
  bad_image_url: 'imageUrl must be an absolute http or https URL',
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
    200: pngResponse('The 1200×630 card.', pngHeaders(TEMPLATE_CACHE_CONTROL)),
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

const IF_NONE_MATCH = {
  'if-none-match': Type.Optional(
    Type.String({ description: 'An ETag from an earlier answer: 304 without rendering when it matches.' }),
  ),
};

const TEMPLATE_DESCRIPTION = `Draws a 1200×630 PNG from a built-in template: \`blog\` (editorial, serif headline), \`product\` (split layout with the product photo) or \`saas\` (dark launch card with the artwork as a browser window).

Text is normalised (NFC, control characters removed, white space folded and trimmed); an empty optional field is the same as leaving it out; fields a template does not draw are accepted and ignored. Unknown fields are refused. Checked in this order: credentials (401), input (400/413/415), plan (403), rate limit (429), then cache and render.`;

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
  body: TemplateFields,
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
  querystring: Type.Object(
    {
      ...TemplateFields.properties,
      v: Type.Optional(
        Type.String({
          pattern: '^[A-Za-z0-9._-]{1,64}$',
          description:
            'A version you choose (v=2), to make crawlers and CDNs fetch the card again after you change its design: it changes the URL, not the card or its ETag.',
          examples: ['2'],
        }),
      ),
    },
    { additionalProperties: false },
  ),
  response: templateResponses('GET'),
};

/** GET /render/url. */
export const renderUrl = {
  operationId: 'screenshot',
  tags: ['Render'],
  summary: 'Screenshot a web page',
  description: `A PNG of the visible viewport of a public page, taken by a warm, pooled Chromium in a fresh browser context. Every request the page makes goes through the URL guard. Cached under the normalised URL plus the viewport (\`waitUntil\` is not part of the key). A page that answers 4xx/5xx is rendered, with its status in X-Target-Status, and cached briefly. HEAD answers with the headers only.

\`\`\`bash
curl -sS -H "x-api-key: $CARDSHOT_KEY" 'http://localhost:3000/render/url?url=https://example.com/&viewport=mobile' -o page.png
\`\`\``,
  security: renderSecurity('GET'),
  headers: Type.Object(IF_NONE_MATCH),
  querystring: Type.Object(
    {
      url: Type.String({
        format: 'uri',
        maxLength: URL_MAX_LENGTH,
        description:
          'Absolute http(s) URL without user name or password; public addresses, ports 80 and 443.',
        examples: ['https://example.com/'],
      }),
      viewport: Type.Optional(
        Type.String({
          default: 'og',
          description:
            'og 1200×630, desktop 1280×800, mobile 390×844 at scale 3, or a custom preset the operator configured (CARDSHOT_SCREENSHOT_VIEWPORTS).',
          examples: ['og', 'desktop', 'mobile'],
        }),
      ),
      waitUntil: Type.Optional(
        Type.String({
          enum: [...WAIT_UNTIL],
          default: DEFAULT_WAIT_UNTIL,
          description:
            'When the page counts as loaded: domcontentloaded, load (the default), or networkidle (load plus 500 ms without network activity).',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  response: {
    200: pngResponse(
      'The screenshot, exactly (width × scale) × (height × scale) pixels.',
      pngHeaders('public, max-age=86400, s-maxage=86400', {
        Age: Type.Integer({ description: 'Seconds since the screenshot was taken (0 when fresh).' }),
        'X-Target-Status': Type.Integer({
          description: "The page's own HTTP status after redirects.",
          examples: [200],
        }),
      }),
    ),
    304: {
      description: 'If-None-Match matched: no body.',
      headers: { ETag: pngHeaders('').ETag, Age: Type.Integer() },
    },
    400: errorResponse('The query is not valid, or the URL points to an address that is not allowed.', {
      missing: 'url is required (an absolute http or https URL)',
      not_http: 'url must be an absolute http or https URL (for example https://example.com/)',
      viewport: 'viewport must be one of: og, desktop, mobile (got "tablet")',
      wait_until: 'waitUntil must be one of: load, domcontentloaded, networkidle (got "idle")',
      unknown:
        'Unknown query parameter "waituntil" (did you mean "waitUntil"?). Allowed: url, viewport, waitUntil',
      refused: 'url points to an address that is not allowed',
    }),
    ...accessErrors(
      {
        screenshots: 'Screenshots are not available on your plan',
        viewport: 'Viewport "desktop" is not available on your plan; use og',
      },
      {
        account_share:
          'Too many screenshots in progress for your account: your plan allows 1 at a time; retry when one has finished',
      },
    ),
    422: errorResponse('The URL answered with something that is not a page.', {
      download: 'url answered with a file download, not a page',
      no_page: 'url did not answer with a page to render',
    }),
    500: errorResponse('A bug on our side, logged with the request id.', {
      internal: 'Internal server error',
    }),
    502: errorResponse('The page could not be reached or crashed the browser.', {
      dns: 'Could not resolve the host name example.invalid',
      refused: 'example.com:8443 refused the connection',
      tls: 'TLS handshake with example.com failed (ERR_CERT_AUTHORITY_INVALID)',
      crash: 'The browser crashed while rendering the page; retry later',
    }),
    503: errorResponse(
      'No browser, or every browser slot is busy (Retry-After, except when Chromium is not installed).',
      {
        not_installed: 'Screenshots are not available on this server: Chromium is not installed',
        not_ready: NOT_READY_MESSAGE,
        busy: 'The screenshot renderer is busy; retry shortly',
      },
      { ...REQUEST_ID, ...RETRY_AFTER },
    ),
    504: errorResponse('The page did not reach waitUntil in time (CARDSHOT_SCREENSHOT_TIMEOUT_MS).', {
      timeout: 'The page did not reach "networkidle" within 15 s',
    }),
  },
};
