/**
 * The sites area (design §11): reading pages without a browser. The link unfurl check (GET
 * /unfurl, the dashboard's Link preview, `cardshot unfurl`), and site cards (issue 30 §1): an
 * account's sites (/sites), the keyless `/og/<site>/<path>` route and the warm job's page reads.
 */
import type { Logger } from 'pino';
import { type Area, startArea } from '../area.js';
import type { Plans } from '../auth/plans.js';
import type { PngCache } from '../cache/cache.js';
import type { Clock } from '../lib/clock.js';
import { createWorkQueue } from '../lib/work-queue.js';
import type { NetConfig } from '../net/settings.js';
import { createUrlGuard, type UrlGuard } from '../net/url-guard.js';
import type { RateLimiter } from '../ratelimit/limiter.js';
import type { RenderCommand } from '../render/command.js';
import type { TemplateRegistry } from '../render/template/types.js';
import type { Store } from '../storage/store.js';
import type { UsageRecorder } from '../usage/recorder.js';
import { CARDSHOT_VERSION } from '../version.js';
import { createHeadReader, type HeadReader } from './head/reader.js';
import { createSitePages } from './og/pages.js';
import { createOgService, type OgService } from './og/service.js';
import { createSiteService, type SiteService } from './service.js';
import type { SiteConfig } from './settings.js';
import { createSiteStore } from './store.js';
import { createPreviewImages, type PreviewImages } from './unfurl/preview-image.js';
import { createUnfurlService, type UnfurlService } from './unfurl/service.js';
import type { SitemapOptions } from './warm.js';

/** What the area gives the app. */
export interface Sites {
  unfurl: UnfurlService;
  /** Page heads through the URL guard (1 MB at most, up to `</head>`). */
  reader: HeadReader;
  /** The Link preview's images, fetched through the guard for the signed-in account. */
  previewImages: PreviewImages;
  /** Site cards; absent in a process without the card areas. */
  cards?: SiteCards;
}

/** Site cards: the sites of each account, `/og`, and how warm jobs find pages. */
export interface SiteCards {
  sites: SiteService;
  og: OgService;
  sitemap: SitemapOptions;
  warmMaxPages: number;
}

/** What site cards are drawn with: the store, the cache and the render command of the process. */
export interface SiteCardDeps {
  store: Store;
  plans: Plans;
  registry: () => TemplateRegistry;
  cache: PngCache;
  render: Pick<RenderCommand, 'card'>;
  usage: Pick<UsageRecorder, 'record'>;
  limiter: Pick<RateLimiter, 'consume'>;
  /** This server's public origin (a site's `ogUrl`). */
  publicOrigin: () => string;
}

/** Bytes of a page read at most: Facebook's crawler reads about this much too. */
export const HEAD_MAX_BYTES = 1024 * 1024;
const MAX_REDIRECTS = 5;
/** Sites' pages are read as Cardshot, saying which crawlers it reads for (sites that serve tags to crawlers only still match). */
const SITE_USER_AGENT = `Mozilla/5.0 (compatible; Cardshot/${CARDSHOT_VERSION}; site cards) facebookexternalhit/1.1`;

/** Starts the sites area; `guard` replaces the configured URL guard and `ca` adds a certificate authority (tests). */
export function createSitesArea(
  config: SiteConfig & NetConfig,
  deps: {
    log: Logger;
    clock?: Clock;
    guard?: UrlGuard;
    ca?: string;
    onBusy?: () => void;
    cards?: SiteCardDeps;
  },
): Promise<Area<Sites>> {
  return startArea(deps.log, (parts) => {
    const guard = deps.guard ?? createUrlGuard({ allowPrivateHosts: config.allowPrivateHosts });
    const reader = createHeadReader({
      guard,
      timeoutMs: config.unfurlTimeoutMs,
      maxBytes: HEAD_MAX_BYTES,
      maxRedirects: MAX_REDIRECTS,
      ...(deps.ca ? { ca: deps.ca } : {}),
    });
    const queue = createWorkQueue({
      name: 'unfurl',
      concurrency: config.unfurlConcurrency,
      maxWaiting: config.unfurlConcurrency * 4,
      ...(deps.onBusy ? { onBusy: deps.onBusy } : {}),
    });
    const unfurl = createUnfurlService({
      guard,
      reader,
      queue,
      timeoutMs: config.unfurlTimeoutMs,
      cacheMs: config.unfurlCacheSeconds * 1000,
      perAccount: config.unfurlConcurrencyPerAccount,
      ...(deps.ca ? { ca: deps.ca } : {}),
      ...(deps.clock ? { clock: deps.clock } : {}),
    });
    parts.add('unfurl', () => unfurl.close());
    return {
      service: {
        unfurl,
        reader,
        previewImages: createPreviewImages({
          guard,
          timeoutMs: config.unfurlTimeoutMs,
          ...(deps.ca ? { ca: deps.ca } : {}),
        }),
        ...(deps.cards ? { cards: siteCards(config, guard, deps.cards, deps) } : {}),
      },
      samples: {
        unfurl: () => ({
          queues: {
            unfurl: { active: queue.active, waiting: queue.waiting, concurrency: queue.concurrency },
          },
        }),
      },
    };
  });
}

function siteCards(
  config: SiteConfig,
  guard: UrlGuard,
  c: SiteCardDeps,
  o: { ca?: string; clock?: Clock },
): SiteCards {
  const clock = o.clock ? { clock: o.clock } : {};
  const ca = o.ca ? { ca: o.ca } : {};
  const store = createSiteStore(c.store.db);
  const pages = createSitePages({
    reader: createHeadReader({
      guard,
      timeoutMs: config.siteReadTimeoutMs,
      maxBytes: HEAD_MAX_BYTES,
      maxRedirects: MAX_REDIRECTS,
      ...ca,
    }),
    cache: c.cache,
    limiter: c.limiter,
    readsPerMinute: config.siteReadsPerMinute,
    fallbackSeconds: config.siteFallbackSeconds,
    userAgent: SITE_USER_AGENT,
    ...clock,
  });
  const og = createOgService({
    store,
    getAccount: (id) => c.store.getAccount(id),
    plans: c.plans,
    registry: c.registry,
    pages,
    render: c.render,
    usage: c.usage,
    ...clock,
  });
  const sites = createSiteService({
    store,
    registry: c.registry,
    guard,
    publicOrigin: c.publicOrigin,
    maxPerAccount: config.sitesPerAccount,
    onChange: (id) => og.forget(id),
    ...clock,
  });
  return {
    sites,
    og,
    sitemap: { guard, timeoutMs: config.siteReadTimeoutMs, userAgent: SITE_USER_AGENT, ...ca },
    warmMaxPages: config.siteWarmMaxPages,
  };
}
