/**
 * A site page's card fields, read once per refresh interval: looked up in the shared cache
 * (every tier, so every node, keyed with the site's version, so a purge or a change of the site
 * misses at once), else read through the guarded head reader on one flight per page, with the
 * per-site read budget spent only here (a cached answer costs the site nothing). A page that
 * cannot be read is remembered as such for a shorter time, with the reason its fallback names.
 */
import { createHash } from 'node:crypto';
import type { PngCache } from '../../cache/cache.js';
import { AppError } from '../../errors.js';
import { type Clock, systemClock } from '../../lib/clock.js';
import { createSingleFlight } from '../../lib/single-flight.js';
import { RATE_LIMITED } from '../../ratelimit/budgets.js';
import type { RateLimiter } from '../../ratelimit/limiter.js';
import type { HeadRead, HeadReader } from '../head/reader.js';
import type { SiteRecord } from '../store.js';
import { cardFromHead, type PageCard } from './mapping.js';

/** What a page gave: its card, or the reason the site's fallback is drawn instead. */
export type PageRead = { card: PageCard; reason: null } | { card: null; reason: string };

export interface SitePages {
  /**
   * The page's card fields; `cached` says no read was made. `budget: false` (a warm job's
   * item, which spends the account's rate limit instead) reads without the site's budget.
   */
  read(
    site: SiteRecord,
    url: string,
    opts: { signal?: AbortSignal; budget?: boolean },
  ): Promise<{ page: PageRead; cached: boolean }>;
  /** Forgets the page in every cache tier. */
  forget(site: SiteRecord, url: string): Promise<void>;
}

export interface SitePagesDeps {
  reader: HeadReader;
  cache: PngCache;
  limiter: Pick<RateLimiter, 'consume'>;
  /** Page reads per site per minute (cached answers do not count). */
  readsPerMinute: number;
  /** How long a page that could not be read keeps its fallback before it is tried again. */
  fallbackSeconds: number;
  /** The User-Agent pages are read with. */
  userAgent: string;
  /** Reads the head after the page's scripts ran (`render: "browser"`); absent: fetch only. */
  browserReader?: Pick<HeadReader, 'read'>;
  clock?: Clock;
}

/** The page reader of the `/og` route and the warm job. */
export function createSitePages(deps: SitePagesDeps): SitePages {
  const clock = deps.clock ?? systemClock;
  const flight = createSingleFlight<PageRead>();
  const keyOf = (site: SiteRecord, url: string) =>
    `sitepage-${createHash('sha256')
      .update(`${site.id}\n${site.version}\n${site.purged[url] ?? 0}\n${url}`)
      .digest('hex')}`;

  const fetchPage = async (site: SiteRecord, url: string, signal: AbortSignal): Promise<PageRead> => {
    const reader = site.render === 'browser' && deps.browserReader ? deps.browserReader : deps.reader;
    // Redirects stay within the site: a page that sends its reader elsewhere gets the fallback.
    const got = await reader.read(url, deps.userAgent, signal, { origins: site.origins });
    return pageOf(got, site, url);
  };

  return {
    async read(site, url, { signal, budget = true }) {
      const key = keyOf(site, url);
      const hit = await deps.cache.get(key);
      if (hit) return { page: JSON.parse(hit.body.toString('utf8')) as PageRead, cached: true };
      const { value } = await flight.do(
        key,
        async (flightSignal) => {
          if (budget) await spend(deps, site.id);
          const page = await fetchPage(site, url, flightSignal);
          const now = clock.now();
          const seconds =
            page.reason === null ? site.refreshSeconds : Math.min(site.refreshSeconds, deps.fallbackSeconds);
          const body = Buffer.from(JSON.stringify(page));
          // Not awaited: the memory tier has it at once (later requests on this node hit), and
          // the disk and Redis writes need not hold the first answer (bench/og.ts).
          deps.cache
            .set(key, {
              body,
              etag: createHash('sha256').update(body).digest('hex').slice(0, 32),
              storedAt: now,
              expiresAt: now + seconds * 1000,
            })
            .catch(() => {});
          return page;
        },
        signal,
      );
      return { page: value, cached: false };
    },
    forget: (site, url) => deps.cache.delete(keyOf(site, url)),
  };
}

/** One page read of the site's budget; 429 past it (the page is not read). */
async function spend(deps: SitePagesDeps, siteId: string): Promise<void> {
  const d = await deps.limiter.consume(`site-reads:${siteId}`, deps.readsPerMinute, 60_000);
  if (!d.allowed) {
    throw new AppError('rate_limited', RATE_LIMITED, {
      retryAfter: d.resetMs / 1000,
      detail: `site ${siteId}: more than ${deps.readsPerMinute} page reads a minute`,
    });
  }
}

/** What a head read means for the card: its fields, or why the fallback is drawn. */
export function pageOf(got: HeadRead, site: SiteRecord, url: string): PageRead {
  if (!got.ok) {
    const reason =
      got.failure === 'timeout'
        ? 'timeout'
        : got.failure === 'too_many_redirects'
          ? 'too-many-redirects'
          : got.failure === 'refused'
            ? 'refused'
            : 'unreachable';
    return { card: null, reason };
  }
  if (got.status >= 400) return { card: null, reason: `http-${got.status}` };
  if (got.status >= 300) return { card: null, reason: 'redirect' };
  if (got.contentType !== null && !/html/i.test(got.contentType)) return { card: null, reason: 'not-html' };
  const card = cardFromHead(got.meta, site.fields, got.finalUrl || url);
  return card ? { card, reason: null } : { card: null, reason: 'no-title' };
}
