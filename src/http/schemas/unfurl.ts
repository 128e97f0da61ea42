/**
 * The OpenAPI description of GET /unfurl. Documentation only: the route validates by hand and
 * the report's shape is src/sites/unfurl/types.ts.
 */
import { Type } from 'typebox';
import { PLATFORMS } from '../../sites/platforms.js';
import { errorResponse, KEY_SECURITY, RATE_LIMIT_HEADERS, REQUEST_ID, RETRY_AFTER } from './common.js';

const nullable = (t: ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>) =>
  Type.Union([t, Type.Null()]);
const Severity = Type.String({ enum: ['error', 'warning', 'info'] });
const Platform = Type.String({ enum: PLATFORMS.map((p) => p.id) });

const Problem = Type.Object({
  code: Type.String({ examples: ['og_image_missing'] }),
  severity: Severity,
  message: Type.String({ examples: ['No og:image: the card has no picture'] }),
  fix: Type.Union([Type.String(), Type.Null()], {
    description:
      'The tag to add (or header, robots.txt rule) that fixes it; null when there is none to paste.',
    examples: ['<meta property="og:image" content="https://example.com/og/card.png">'],
  }),
});

const View = Type.Object({
  id: Platform,
  name: Type.String({ examples: ['X'] }),
  userAgent: Type.String({ description: "The network's crawler User-Agent the page was read with." }),
  fetch: Type.Object({
    status: nullable(Type.Integer()),
    finalUrl: nullable(Type.String()),
    redirects: Type.Integer({ minimum: 0 }),
    failure: Type.Union([
      Type.String({ enum: ['timeout', 'refused', 'network', 'too_many_redirects'] }),
      Type.Null(),
    ]),
  }),
  card: Type.String({
    enum: ['large', 'summary', 'none'],
    description: 'large: a wide image with the text; summary: a thumbnail beside it; none: no card.',
  }),
  cardName: nullable(Type.String({ description: "X's card type (summary_large_image, summary)." })),
  title: nullable(Type.String({ description: 'The title as the network cuts it.' })),
  description: nullable(
    Type.String({ description: 'The description as the network cuts it; null where it shows none.' }),
  ),
  siteName: Type.String(),
  domain: Type.String(),
  image: Type.Union([
    Type.Object({
      url: Type.String(),
      width: nullable(Type.Integer()),
      height: nullable(Type.Integer()),
      aspect: Type.String({ examples: ['1.91:1'], description: 'The frame the image is drawn in.' }),
      cropped: Type.Boolean({ description: "True when the image's proportions differ from the frame." }),
    }),
    Type.Null(),
  ]),
  accentColor: nullable(Type.String({ description: "Discord's embed colour (theme-color)." })),
  problems: Type.Array(Problem),
});

const Report = Type.Object(
  {
    url: Type.String(),
    checkedAt: Type.String({ format: 'date-time' }),
    page: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          "The page as Facebook's crawler read it: finalUrl, status, redirects, charset, title, description, siteName, canonical, lang, themeColor, robots, icons, og, twitter.",
      },
    ),
    images: Type.Array(Type.Object({}, { additionalProperties: true }), {
      description: 'Each image a network would draw: status, type, width, height, bytes.',
    }),
    platforms: Type.Array(View),
    problems: Type.Array(Type.Object({ ...Problem.properties, platforms: Type.Array(Platform) }), {
      description: 'Every problem once, errors first, with the networks it concerns.',
    }),
    summary: Type.Object({
      errors: Type.Integer({ minimum: 0 }),
      warnings: Type.Integer({ minimum: 0 }),
      infos: Type.Integer({ minimum: 0 }),
    }),
  },
  { $id: 'UnfurlReport', title: 'UnfurlReport' },
);

export const UNFURL_SCHEMAS = [Report];

const security = KEY_SECURITY;

export const unfurlSchema = {
  operationId: 'unfurl',
  tags: ['Link preview'],
  security,
  summary:
    'How X, LinkedIn, Facebook, Slack, Discord, WhatsApp, iMessage, Telegram and Mastodon will show a link',
  description:
    "Reads the page once per network with that network's crawler User-Agent (through the URL guard: public http(s) pages only), its robots.txt and its image, and answers what each network shows and every problem found, each with its fix. Counted against the account's rate limit like a render; the same account gets the same report for a minute. docs/unfurl.md lists the rules.",
  querystring: Type.Object({
    url: Type.String({ maxLength: 2048, examples: ['https://example.com/blog/post-1'] }),
  }),
  response: {
    200: {
      description: 'The report (also for pages with problems: a 404 page is a report with an error in it).',
      headers: { ...REQUEST_ID, ...RATE_LIMIT_HEADERS },
      content: { 'application/json': { schema: Type.Ref('UnfurlReport') } },
    },
    400: errorResponse('The url is missing, not http(s), or not a public address.', {
      missing: 'url is required (an absolute http or https URL)',
      private: 'url points to an address that is not allowed',
    }),
    401: errorResponse('No key, or a key that is not valid (a signed URL does not check links).', {
      unauthorized: 'Missing or invalid API key',
    }),
    429: errorResponse(
      'The account used up its rate limit, or has as many link checks running as it may.',
      {
        rate_limited: 'Rate limit exceeded',
        busy: 'Too many link checks in progress for your account; retry shortly',
      },
      { ...REQUEST_ID, ...RETRY_AFTER, ...RATE_LIMIT_HEADERS },
    ),
  },
};
