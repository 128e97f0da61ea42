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
} as const satisfies SettingsGroup;

/** What the sites area reads. */
export type SiteConfig = ConfigOf<typeof siteSettings>;
