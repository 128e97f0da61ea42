/**
 * The OpenAPI description of GET /render/url and its options (issue 17). Documentation only:
 * the route validates by hand (render/screenshot/request.ts, options.ts), and its messages are
 * the examples here.
 */
import { Type } from 'typebox';
import { FRESH_SIGNED_REFUSED } from '../../auth/signing.js';
import { NOT_READY_MESSAGE } from '../../render/screenshot/engine/refusals.js';
import { OPTION_NAMES } from '../../render/screenshot/option-names.js';
import { DEFAULT_WAIT_UNTIL, URL_MAX_LENGTH, WAIT_UNTIL } from '../../render/screenshot/request.js';
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
import { SHOT_OPTION_PROPERTIES } from './shot-options.js';
import { STORE_PARAMS } from './storage.js';

/** GET /render/url. */
export const renderUrl = {
  operationId: 'screenshot',
  tags: ['Render'],
  summary: 'Screenshot a web page',
  description: `A PNG of the visible viewport of a public page (or, with options, the whole page or one element, in JPEG, WebP or AVIF, or the page printed as a PDF), taken by a warm, pooled Chromium in a fresh browser context. Every request the page makes goes through the URL guard. Cached under the normalised URL, the viewport, \`waitUntil\` and every option that changes the image. A page that answers 4xx/5xx is rendered, with its status in X-Target-Status, and cached briefly. HEAD answers with the headers only.

\`\`\`bash
curl -sS -H "x-api-key: $CARDSHOT_KEY" 'http://localhost:3000/render/url?url=https://example.com/&viewport=mobile' -o page.png
curl -sS -H "x-api-key: $CARDSHOT_KEY" 'http://localhost:3000/render/url?url=https://example.com/&fullPage=true&format=webp&hideSelectors=%23cookie-banner' -o page.webp
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
      ...SHOT_OPTION_PROPERTIES,
      ...STORE_PARAMS,
    },
    { additionalProperties: false },
  ),
  response: {
    200: imageResponse(
      'The screenshot: the viewport is exactly (width × scale) × (height × scale) pixels; a full page or an element is as wide (or as large) as it is, times scale.',
      pngHeaders('public, max-age=86400, s-maxage=86400', {
        Age: Type.Integer({ description: 'Seconds since the screenshot was taken (0 when fresh).' }),
        'X-Target-Status': Type.Integer({
          description: "The page's own HTTP status after redirects.",
          examples: [200],
        }),
        'X-Page-Height': Type.Integer({
          description: "fullPage only: the page's whole height in CSS pixels.",
          examples: [5230],
        }),
        'X-Full-Page-Truncated': Type.String({
          enum: ['true'],
          description:
            'Present when the maximum height (or the format: WebP stops at 16,383) cut the capture.',
        }),
        'X-Pdf-Pages': Type.Integer({ description: "format=pdf only: the PDF's page count.", examples: [3] }),
        'X-Pdf-Truncated': Type.String({
          enum: ['true'],
          description:
            'format=pdf only: present when the page printed more than CARDSHOT_PDF_MAX_PAGES pages.',
        }),
      }),
      ['application/pdf'],
    ),
    304: {
      description: 'If-None-Match matched: no body.',
      headers: { ETag: pngHeaders('').ETag, Age: Type.Integer() },
    },
    400: errorResponse(
      'The query is not valid, or the URL points to an address that is not allowed (or to a host name that does not resolve: the same answer).',
      {
        missing: 'url is required (an absolute http or https URL)',
        not_http: 'url must be an absolute http or https URL (for example https://example.com/)',
        viewport: 'viewport must be one of: og, desktop, mobile (got "tablet")',
        wait_until: 'waitUntil must be one of: load, domcontentloaded, networkidle (got "idle")',
        unknown: `Unknown query parameter "fullpage" (did you mean "fullPage"?). Allowed: ${['url', 'viewport', 'waitUntil', ...OPTION_NAMES].join(', ')}`,
        refused: 'url points to an address that is not allowed',
        boolean: 'fullPage must be true or false (or 1 or 0) (got "yes")',
        delay: 'delay must be a whole number of milliseconds from 0 to 10000 (got "20000")',
        scale: 'scale must be 1, 2 or 3 (got "4")',
        format: 'format must be one of: png, jpeg, webp, avif, pdf (got "gif")',
        pdf_only: 'paper applies to format=pdf only; add format=pdf or leave it out',
        image_only: 'fullPage applies to images only; leave it out with format=pdf',
        pdf_scale: 'scale must be a number from 0.1 to 2 with format=pdf (got "3")',
        page_ranges: 'pageRanges "7-9" selects no page of this page\'s PDF',
        quality_png:
          'quality applies to jpeg, webp and avif only; leave it out, or add format=jpeg, webp or avif',
        ttl: 'ttl must be a whole number of seconds from 3600 to 2592000 (got "60")',
        selector: 'selector must be a CSS selector: "a{color:red}" is not one (it contains "{")',
        hide_selectors: 'hideSelectors must list at most 20 CSS selectors, comma-separated (got 21)',
        twice: 'fullPage must be given once',
        fresh_signed: FRESH_SIGNED_REFUSED,
      },
    ),
    ...accessErrors(
      {
        screenshots: 'Screenshots are not available on your plan',
        viewport: 'Viewport "desktop" is not available on your plan; use og',
        option: 'Option "fullPage" not available on your plan',
      },
      {
        account_share:
          'Too many screenshots in progress for your account: your plan allows 1 at a time; retry when one has finished',
      },
    ),
    422: errorResponse(
      'The URL answered with something that is not a page, or selector found nothing to capture.',
      {
        download: 'url answered with a file download, not a page',
        no_page: 'url did not answer with a page to render',
        selector: 'selector "#pricing" matched no element within 15 s',
        empty: 'selector "#pricing" matched an element with no size (0×0 CSS pixels): it is hidden or empty',
      },
    ),
    500: errorResponse('A bug on our side, logged with the request id.', {
      internal: 'Internal server error',
    }),
    502: errorResponse('The page could not be reached or crashed the browser.', {
      refused: 'example.com:8443 refused the connection',
      tls: 'TLS handshake with example.com failed (ERR_CERT_AUTHORITY_INVALID)',
      crash: 'The browser crashed while rendering the page; retry later',
    }),
    503: errorResponse(
      'No browser, or every browser slot is busy (Retry-After, except when Chromium is not installed), or a blocking option whose filter lists set-up has not built.',
      {
        not_installed: 'Screenshots are not available on this server: Chromium is not installed',
        blocking:
          'blockAds is not available on this server: its filter lists are not built (run `npm run setup`)',
        not_ready: NOT_READY_MESSAGE,
        busy: 'The screenshot renderer is busy; retry shortly',
      },
      { ...REQUEST_ID, ...RETRY_AFTER },
    ),
    504: errorResponse(
      'The page did not reach waitUntil, or show waitForSelector, in time (CARDSHOT_SCREENSHOT_TIMEOUT_MS).',
      {
        timeout: 'The page did not reach "networkidle" within 15 s',
        wait_for_selector: 'waitForSelector ".chart.ready" did not become visible within 15 s',
      },
    ),
  },
};
