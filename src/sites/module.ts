/**
 * The sites area (design §11): reading pages without a browser. Today the link unfurl check
 * (GET /unfurl, the dashboard's Link preview, `cardshot unfurl`); the page head reader it
 * exports is what site cards (`/og`, issue 30 §1) read pages with.
 */
import type { Logger } from 'pino';
import { type Area, startArea } from '../area.js';
import type { Clock } from '../lib/clock.js';
import { createWorkQueue } from '../lib/work-queue.js';
import type { NetConfig } from '../net/settings.js';
import { createUrlGuard, type UrlGuard } from '../net/url-guard.js';
import { createHeadReader, type HeadReader } from './head/reader.js';
import type { SiteConfig } from './settings.js';
import { createPreviewImages, type PreviewImages } from './unfurl/preview-image.js';
import { createUnfurlService, type UnfurlService } from './unfurl/service.js';

/** What the area gives the app. */
export interface Sites {
  unfurl: UnfurlService;
  /** Page heads through the URL guard (1 MB at most, up to `</head>`). */
  reader: HeadReader;
  /** The Link preview's images, fetched through the guard for the signed-in account. */
  previewImages: PreviewImages;
}

/** Bytes of a page read at most: Facebook's crawler reads about this much too. */
export const HEAD_MAX_BYTES = 1024 * 1024;
const MAX_REDIRECTS = 5;

/** Starts the sites area; `guard` replaces the configured URL guard and `ca` adds a certificate authority (tests). */
export function createSitesArea(
  config: SiteConfig & NetConfig,
  deps: { log: Logger; clock?: Clock; guard?: UrlGuard; ca?: string; onBusy?: () => void },
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
