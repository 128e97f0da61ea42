import type { ConfigOf, SettingsGroup } from '../config/setting.js';

/** Reading pages without a browser: the link unfurl check (and, later, site cards). */
export const siteSettings = {
  unfurlTimeoutMs: {
    kind: 'int',
    default: 8000,
    min: 500,
    max: 60_000,
    description:
      "Time each crawler's read of a page gets in GET /unfurl (DNS, connect, up to 5 redirects, the head); a page slower than this is reported as timing out, as the networks' crawlers give up too.",
  },
  unfurlCacheSeconds: {
    kind: 'int',
    default: 60,
    min: 0,
    max: 3600,
    description:
      'How long an account gets the same GET /unfurl report for the same URL without the page being read again (0: never reused).',
  },
  unfurlConcurrency: {
    kind: 'int',
    default: 8,
    min: 1,
    max: 1000,
    description:
      'GET /unfurl checks running at once on one node (each reads the page once per network); past it and a short queue, 503 with Retry-After.',
  },
  unfurlConcurrencyPerAccount: {
    kind: 'int',
    default: 2,
    min: 1,
    max: 1000,
    description:
      "GET /unfurl checks of one account running at once on one node; a few more wait, past that the account gets 429, so one account's flood never holds every slot.",
  },
  sitesPerAccount: {
    kind: 'int',
    default: 50,
    min: 1,
    max: 100_000,
    description: 'Sites one account may register (POST /sites); past it, 409.',
  },
  siteReadTimeoutMs: {
    kind: 'int',
    default: 5000,
    min: 500,
    max: 60_000,
    description:
      "Time GET /og gets to read a site's page (DNS, connect, redirects within the site, the head); a slower page gets the site's fallback card with X-Cardshot-Fallback: timeout.",
  },
  siteReadsPerMinute: {
    kind: 'int',
    default: 120,
    min: 1,
    max: 1_000_000,
    description:
      'Pages of one site GET /og reads a minute (across nodes with Redis); answers from the cache do not count. Past it, 429 until the minute ends, so a flood of made-up paths cannot turn Cardshot against the site.',
  },
  siteFallbackSeconds: {
    kind: 'int',
    default: 300,
    min: 10,
    max: 86_400,
    description:
      "How long a page that could not be read keeps the site's fallback card before GET /og tries it again (at most the site's refresh interval).",
  },
  siteWarmMaxPages: {
    kind: 'int',
    default: 1000,
    min: 1,
    max: 50_000,
    description:
      'Pages one POST /sites/:id/warm job takes from the sitemap at most (its "limit" may ask for fewer).',
  },
} as const satisfies SettingsGroup;

/** What the sites area reads. */
export type SiteConfig = ConfigOf<typeof siteSettings>;
