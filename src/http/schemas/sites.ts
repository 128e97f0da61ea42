/**
 * The OpenAPI description of the sites routes (issue 30 §1). Documentation only: the routes
 * validate by hand (sites/input.ts) and these examples are their messages.
 */
import { Type } from 'typebox';
import { CRAWLER_SIZES } from '../../sites/og/crawlers.js';
import {
  DELETED_RESPONSE,
  errorResponse,
  header,
  imageResponse,
  jsonResponse,
  KEY_SECURITY,
  RATE_LIMIT_HEADERS,
  REQUEST_ID,
  RETRY_AFTER,
} from './common.js';

const Sources = (example: string) =>
  Type.String({
    description:
      'Sources tried in order, separated by |: og:…, twitter:…, title, description, host, or a meta name.',
    examples: [example],
  });

const Fields = Type.Object({
  title: Type.Optional(Sources('og:title|title')),
  subtitle: Type.Optional(Type.Union([Sources('og:description|description'), Type.Null()])),
  brand: Type.Optional(Type.Union([Sources('og:site_name|host'), Type.Null()])),
  imageUrl: Type.Optional(Type.Union([Sources('og:image'), Type.Null()])),
});
const Fallback = Type.Object({
  title: Type.String({ maxLength: 200 }),
  subtitle: Type.Optional(Type.String({ maxLength: 300 })),
});

const Site = Type.Object(
  {
    id: Type.String({ examples: ['site_3f2a9c0d1e4b5a6c7d8e'] }),
    name: Type.String(),
    origins: Type.Array(Type.String({ format: 'uri' })),
    template: Type.String({ examples: ['blog'] }),
    theme: Type.String({ enum: ['account', 'none'] }),
    fields: Fields,
    fallback: Fallback,
    refreshSeconds: Type.Integer({ minimum: 60 }),
    render: Type.String({ enum: ['fetch', 'browser'] }),
    ogUrl: Type.String({
      description: "Add a page's path: the og:image of that page.",
      examples: ['https://cards.example.com/og/site_3f2a9c0d1e4b5a6c7d8e/'],
    }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Site', title: 'Site' },
);

const SiteBody = Type.Object({
  origins: Type.Optional(
    Type.Array(Type.String({ examples: ['https://blog.example.com'] }), { minItems: 1, maxItems: 10 }),
  ),
  template: Type.Optional(Type.String({ examples: ['blog'] })),
  theme: Type.Optional(Type.String({ enum: ['account', 'none'] })),
  fields: Type.Optional(Fields),
  fallback: Type.Optional(Fallback),
  refreshSeconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 2_592_000, default: 86_400 })),
  render: Type.Optional(Type.String({ enum: ['fetch', 'browser'], default: 'fetch' })),
  name: Type.Optional(Type.String({ maxLength: 100 })),
});

/** Shared schemas the routes register. */
export const SITE_SCHEMAS = [Site];

const security = KEY_SECURITY;
const tags = ['Sites'];
const idParam = Type.Object({ id: Type.String({ description: 'The site id (site_…).' }) });
const json = jsonResponse;
const unauthorized = errorResponse(
  'No key, or a key that is not valid (a signed URL does not manage sites).',
  {
    unauthorized: 'Missing or invalid API key',
  },
);
const notFound = errorResponse("No such site on this account (another account's sites read as missing).", {
  missing: 'No such site on this account',
});
const tooMany = errorResponse(
  'The rate limit.',
  { rate_limited: 'Rate limit exceeded' },
  { ...REQUEST_ID, ...RETRY_AFTER, ...RATE_LIMIT_HEADERS },
);
const badBody = errorResponse('The body is not usable.', {
  origins: 'origins[0] is not a public web address (private, loopback and internal hosts cannot be read)',
  template: 'template must be one of: blog, product, saas',
});
const oneSite = Type.Object({ site: Type.Ref('Site') });

export const createSite = {
  operationId: 'createSite',
  tags,
  security,
  summary: 'Register a site: its pages get cards at /og/<site id>/<path>',
  description:
    'Defaults: title ← og:title, else <title>; subtitle ← og:description, else the meta description; brand ← og:site_name, else the host; imageUrl ← og:image (drawn by templates with artwork). Pages may override with `<meta name="cardshot:title|subtitle|template|theme">`.',
  body: SiteBody,
  response: {
    201: json('Created.', oneSite),
    400: badBody,
    401: unauthorized,
    403: errorResponse('The plan does not include the template.', {
      forbidden: 'Template not available on your plan',
    }),
    409: errorResponse('The account has as many sites as it may.', {
      full: 'This account has 50 sites, the most it may have; delete one first',
    }),
    429: tooMany,
  },
};

export const listSites = {
  operationId: 'listSites',
  tags,
  security,
  summary: "The account's sites",
  response: {
    200: json('The sites, oldest first.', Type.Object({ sites: Type.Array(Type.Ref('Site')) })),
    401: unauthorized,
    429: tooMany,
  },
};

export const getSite = {
  operationId: 'getSite',
  tags,
  security,
  summary: 'One site',
  params: idParam,
  response: { 200: json('The site.', oneSite), 401: unauthorized, 404: notFound, 429: tooMany },
};

export const updateSite = {
  operationId: 'updateSite',
  tags,
  security,
  summary: 'Change a site (the fields given); its cached cards are dropped',
  params: idParam,
  body: SiteBody,
  response: { 200: json('The site.', oneSite), 400: badBody, 401: unauthorized, 404: notFound, 429: tooMany },
};

export const deleteSite = {
  operationId: 'deleteSite',
  tags,
  security,
  summary: 'Delete a site; its /og URLs answer 404',
  params: idParam,
  response: {
    204: DELETED_RESPONSE,
    401: unauthorized,
    404: notFound,
    429: tooMany,
  },
};

export const purgeSite = {
  operationId: 'purgeSite',
  tags,
  security,
  summary: 'Drop cached cards: one page (`path`) or the whole site; the next request reads the page again',
  params: idParam,
  body: Type.Object({ path: Type.Optional(Type.String({ examples: ['/blog/post-1'] })) }),
  response: {
    200: json(
      'What was purged: one page (its path), or every page of the site.',
      Type.Object({
        purged: Type.String({ enum: ['page', 'site'] }),
        path: Type.Optional(Type.String({ description: 'The page purged (with "purged": "page").' })),
      }),
    ),
    400: errorResponse('The body is not usable.', {
      path: 'path must be a page path on the site, starting with / (such as "/blog/post-1")',
    }),
    401: unauthorized,
    404: notFound,
    429: tooMany,
  },
};

export const warmSite = {
  operationId: 'warmSite',
  tags,
  security,
  summary: "Read every page of the site's sitemap and draw its card, as a job",
  description:
    'The sitemap (default `<origin>/sitemap.xml`; a sitemap index is followed one level) must be on the site. Each page is an item of kind `site-page`; follow the job at GET /jobs/:id.',
  params: idParam,
  body: Type.Object({
    sitemap: Type.Optional(Type.String({ format: 'uri' })),
    limit: Type.Optional(Type.Integer({ minimum: 1 })),
  }),
  response: {
    202: json(
      'Queued.',
      Type.Object({
        job: Type.Object({
          id: Type.String(),
          status: Type.String(),
          items: Type.Integer(),
          statusUrl: Type.String({ format: 'uri' }),
        }),
      }),
    ),
    400: errorResponse('The body is not usable.', {
      sitemap: "sitemap must be on one of the site's origins",
    }),
    401: unauthorized,
    404: notFound,
    422: errorResponse('The sitemap cannot be read or lists no page.', {
      unreadable: 'The sitemap https://blog.example.com/sitemap.xml answered HTTP 404',
    }),
    429: tooMany,
  },
};

const ogHeaders = {
  ...REQUEST_ID,
  'Cache-Control': header('How long crawlers may keep it.', 'public, max-age=86400'),
  ETag: header('From the page metadata, the template and the theme.', '"9f86d081884c7d659a2feaa0c55ad015"'),
  Vary: header('The size follows the crawler.', 'User-Agent'),
  'X-Cache': Type.String({ enum: ['HIT', 'MISS'] }),
  'X-Cardshot-Fallback': header(
    "Present when the site's fallback card was drawn: why (http-404, http-500, timeout, no-title, unreachable, refused, not-html, unusable-metadata).",
    'http-404',
  ),
};
const ogResponses = {
  200: imageResponse(
    `The card. Its size follows the User-Agent: ${CRAWLER_SIZES.map((c) => `${c.token} → ${c.size}`).join('; ')}; anything else → og.`,
    ogHeaders,
  ),
  304: { description: 'If-None-Match matched.', headers: { ...REQUEST_ID } },
  400: errorResponse('The path does not stay on the site.', {
    path: "The page path must stay on the site's origin",
  }),
  404: errorResponse('No such site.', { missing: 'No such site' }),
  429: errorResponse(
    "The site's page reads this minute are spent (cached cards are still answered).",
    { rate_limited: 'Rate limit exceeded' },
    { ...REQUEST_ID, ...RETRY_AFTER },
  ),
};

export const ogSchema = {
  operationId: 'siteCard',
  tags,
  summary: "The card of a site's page, without a key",
  description:
    'GET /og/<site id>/<path>?<query> draws the card of <origin>/<path>?<query>. Put it in the page: `<meta property="og:image" content="https://cards.example.com/og/site_…/blog/post-1">`.',
  params: Type.Object({
    siteId: Type.String(),
    path: Type.String({ description: 'The page path and query on the site (`blog/post-1?lang=en`).' }),
  }),
  response: ogResponses,
};

export const ogSiteRootSchema = {
  operationId: 'siteCardRoot',
  tags,
  summary: "The card of a site's home page, without a key",
  params: Type.Object({ siteId: Type.String() }),
  response: ogResponses,
};
