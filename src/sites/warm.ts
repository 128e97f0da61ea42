/**
 * Which pages a warm job reads (issue 30 §1): the site's sitemap (`<origin>/sitemap.xml` unless
 * another one on the site is named), a sitemap index followed one level, every file read through
 * the URL guard with a byte cap. Only pages on the site's origins are kept, as paths, once each.
 */
import { Parser } from 'htmlparser2';
import { AppError } from '../errors.js';
import { FetchError } from '../net/fetch.js';
import type { UrlGuard } from '../net/url-guard.js';
import { guardedGet } from './head/get.js';
import type { SiteRecord } from './store.js';

/** Bytes of one sitemap read at most (the protocol's own limit is 50 MB uncompressed). */
export const SITEMAP_MAX_BYTES = 10 * 1024 * 1024;
/** Sitemaps of an index read at most. */
const MAX_CHILD_SITEMAPS = 20;

export interface SitemapOptions {
  guard: UrlGuard;
  timeoutMs: number;
  ca?: string;
  userAgent: string;
}

/** A warm request's body, validated. */
export function parseWarmInput(body: unknown, maxPages: number): { sitemap?: string; limit: number } {
  const r = (body ?? {}) as Record<string, unknown>;
  if (typeof r !== 'object' || Array.isArray(r)) throw bad('Request body must be a JSON object');
  const stray = Object.keys(r).find((k) => k !== 'sitemap' && k !== 'limit');
  if (stray !== undefined)
    throw bad(`Unknown field ${JSON.stringify(stray.slice(0, 40))}. Allowed: sitemap, limit`);
  if (r.sitemap !== undefined && (typeof r.sitemap !== 'string' || r.sitemap.length > 2048)) {
    throw bad(
      'sitemap must be the URL of a sitemap on the site, such as "https://blog.example.com/sitemap.xml"',
    );
  }
  let limit = maxPages;
  if (r.limit !== undefined) {
    if (typeof r.limit !== 'number' || !Number.isInteger(r.limit) || r.limit < 1 || r.limit > maxPages) {
      throw bad(`limit must be an integer from 1 to ${maxPages}`);
    }
    limit = r.limit;
  }
  return { ...(typeof r.sitemap === 'string' ? { sitemap: r.sitemap } : {}), limit };
}

/** The site's page paths from its sitemap, at most `limit`; 400 for a sitemap off the site, 422 when unreadable. */
export async function sitemapPaths(
  site: SiteRecord,
  sitemap: string | undefined,
  limit: number,
  o: SitemapOptions,
): Promise<string[]> {
  const origins = new Set(site.origins);
  const first = sitemap ?? `${site.origins[0]}/sitemap.xml`;
  let url: URL;
  try {
    url = new URL(first);
  } catch {
    throw bad('sitemap must be an absolute URL');
  }
  if (!origins.has(url.origin)) throw bad("sitemap must be on one of the site's origins");
  const top = await readSitemap(url.href, origins, o);
  const pages = new Set<string>();
  const add = (locs: string[]) => {
    for (const loc of locs) {
      if (pages.size >= limit) return;
      const page = onSite(loc, origins);
      if (page !== null) pages.add(page);
    }
  };
  if (top.index) {
    for (const child of top.locs.slice(0, MAX_CHILD_SITEMAPS)) {
      if (pages.size >= limit) break;
      const childUrl = onSite(child, origins) === null ? null : new URL(child).href;
      if (childUrl === null) continue;
      // A broken child sitemap costs its pages only.
      const read = await readSitemap(childUrl, origins, o).catch(() => null);
      if (read && !read.index) add(read.locs);
    }
  } else add(top.locs);
  return [...pages];
}

async function readSitemap(
  url: string,
  origins: ReadonlySet<string>,
  o: SitemapOptions,
): Promise<{ index: boolean; locs: string[] }> {
  let got: Awaited<ReturnType<typeof guardedGet>>;
  try {
    got = await guardedGet(o.guard, url, {
      userAgent: o.userAgent,
      accept: 'application/xml,text/xml;q=0.9,*/*;q=0.5',
      timeoutMs: o.timeoutMs,
      maxBytes: SITEMAP_MAX_BYTES,
      maxRedirects: 3,
      followable: (next) => origins.has(next.origin),
      ...(o.ca ? { ca: o.ca } : {}),
    });
  } catch (err) {
    if (!(err instanceof FetchError)) throw err;
    throw new AppError('unprocessable', `The sitemap ${url} cannot be read (${err.kind})`, {
      detail: err.detail,
    });
  }
  if (got.status !== 200) {
    throw new AppError('unprocessable', `The sitemap ${url} answered HTTP ${got.status}`);
  }
  return parseSitemap(got.body.toString('utf8'));
}

/** `<loc>` values of a sitemap or a sitemap index (an XML parser, not patterns). */
export function parseSitemap(xml: string): { index: boolean; locs: string[] } {
  const locs: string[] = [];
  let index = false;
  let inLoc = false;
  let text = '';
  const parser = new Parser(
    {
      onopentag(name) {
        const local = name.toLowerCase().replace(/^.*:/, '');
        if (local === 'sitemapindex') index = true;
        if (local === 'loc') {
          inLoc = true;
          text = '';
        }
      },
      ontext(t) {
        if (inLoc) text += t;
      },
      onclosetag(name) {
        if (name.toLowerCase().replace(/^.*:/, '') === 'loc' && inLoc) {
          inLoc = false;
          const loc = text.trim();
          if (loc) locs.push(loc);
        }
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(xml);
  parser.end();
  return { index, locs };
}

/** The page's path and query when `loc` is on the site, else null. */
function onSite(loc: string, origins: ReadonlySet<string>): string | null {
  try {
    const url = new URL(loc);
    return origins.has(url.origin) ? `${url.pathname}${url.search}` : null;
  } catch {
    return null;
  }
}

function bad(message: string): AppError {
  return new AppError('bad_request', message);
}
