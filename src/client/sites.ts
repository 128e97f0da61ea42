/**
 * Sites (issue 30 §1): an origin registered once, after which `GET /og/<site id>/<path>` answers
 * the card of `<origin>/<path>` with no key. Declared here, not imported from the server's code,
 * so the client stays self-contained; test/client/sites-client.test.ts checks the two
 * declarations stay the same shape.
 */
import { sendJson, type TransportOptions } from './transport.js';

/**
 * Where each card text is read from: `|`-separated sources tried in order (`og:title|title`:
 * `og:…`, `twitter:…`, `title`, `description`, `host`, or any `<meta name>`); null: not drawn.
 */
/** What POST /sites/:id/purge forgot: one page (its path as sent), or every page of the site. */
export type SitePurge = { purged: 'page'; path: string } | { purged: 'site' };

export interface SiteFields {
  title: string;
  subtitle: string | null;
  brand: string | null;
  imageUrl: string | null;
}

/** The card a page that cannot be read gets (with `X-Cardshot-Fallback: <reason>`). */
export interface SiteFallback {
  title: string;
  subtitle?: string;
}

/** How a page is read: its head fetched as it is (`fetch`), or after its scripts ran (`browser`). */
export type SiteRender = 'fetch' | 'browser';

/** `account`: the account's brand theme (the default); `none`: the template's own look. */
export type SiteTheme = 'account' | 'none';

/** A site as GET /sites/:id shows it. */
export interface Site {
  id: string;
  name: string;
  /** The origins its pages are read from (`https://blog.example.com`); nothing else is fetched. */
  origins: string[];
  template: string;
  theme: SiteTheme;
  fields: SiteFields;
  /** Default: the site's name as the title. */
  fallback: SiteFallback;
  /** A page is read again after this long (60 s to 30 days; default a day). */
  refreshSeconds: number;
  render: SiteRender;
  /** `<public url>/og/<id>/`: append a page's path (without its leading `/`). */
  ogUrl: string;
  createdAt: string;
}

/** What POST /sites takes; only the origins and the template are required. */
export interface SiteInput {
  origins: string[];
  template: string;
  theme?: SiteTheme | null;
  /** Only the fields to change from the defaults. */
  fields?: Partial<SiteFields>;
  fallback?: SiteFallback;
  refreshSeconds?: number;
  render?: SiteRender;
  name?: string;
}

/** What PATCH /sites/:id takes: any of the fields POST takes. */
export type SiteUpdate = Partial<SiteInput>;

/** The warm job POST /sites/:id/warm started (follow it with `cardshot.jobs.wait(job.id)`). */
export interface WarmJob {
  id: string;
  status: 'queued' | 'running' | 'completed' | 'failed' | 'canceled';
  /** One item per page found in the sitemap (up to `limit`). */
  items: number;
  statusUrl: string;
}

export interface WarmOptions {
  /** Default `<first origin>/sitemap.xml`; a sitemap index is followed one level. */
  sitemap?: string;
  /** At most this many pages. */
  limit?: number;
}

type Call = { signal?: AbortSignal };
const enc = encodeURIComponent;

/** The account's sites (/sites…). Reached as `cardshot.sites`. */
export class SitesApi {
  constructor(private readonly t: TransportOptions) {}

  /** POST /sites: registers an origin (a private address is refused, as everywhere). */
  async create(input: SiteInput, call: Call = {}): Promise<Site> {
    return (await sendJson<{ site: Site }>(this.t, 'POST', '/sites', input, call)).site;
  }

  /** GET /sites. */
  async list(call: Call = {}): Promise<Site[]> {
    return (await sendJson<{ sites: Site[] }>(this.t, 'GET', '/sites', undefined, call)).sites;
  }

  /** GET /sites/:id. */
  async get(id: string, call: Call = {}): Promise<Site> {
    return (await sendJson<{ site: Site }>(this.t, 'GET', `/sites/${enc(id)}`, undefined, call)).site;
  }

  /** PATCH /sites/:id: the fields given change, the others stay. */
  async update(id: string, changes: SiteUpdate, call: Call = {}): Promise<Site> {
    return (await sendJson<{ site: Site }>(this.t, 'PATCH', `/sites/${enc(id)}`, changes, call)).site;
  }

  /** DELETE /sites/:id: its /og URLs answer 404 from then on. */
  async delete(id: string, call: Call = {}): Promise<void> {
    await sendJson<void>(this.t, 'DELETE', `/sites/${enc(id)}`, undefined, call);
  }

  /** POST /sites/:id/purge: forgets the cards of one path (or of every page); what was purged. */
  async purge(id: string, opts: { path?: string } & Call = {}): Promise<SitePurge> {
    const body = opts.path === undefined ? {} : { path: opts.path };
    return sendJson<SitePurge>(this.t, 'POST', `/sites/${enc(id)}/purge`, body, opts);
  }

  /** POST /sites/:id/warm: a job that reads every page of the sitemap and fills the /og cache. */
  async warm(id: string, opts: WarmOptions & Call = {}): Promise<WarmJob> {
    const body = {
      ...(opts.sitemap === undefined ? {} : { sitemap: opts.sitemap }),
      ...(opts.limit === undefined ? {} : { limit: opts.limit }),
    };
    return (await sendJson<{ job: WarmJob }>(this.t, 'POST', `/sites/${enc(id)}/warm`, body, opts)).job;
  }
}

/**
 * The /og URL of one page of a site: `page` is a path (`/blog/post-1?lang=en`) or a full URL on
 * one of the site's origins. Throws a TypeError for a URL on another origin.
 */
export function siteCardUrl(site: Pick<Site, 'ogUrl' | 'origins'>, page: string): string {
  const absolute = /^[a-z][a-z0-9+.-]*:/i.test(page);
  const base = site.origins[0] ?? 'https://invalid.example';
  const url = new URL(absolute ? page : `/${page.replace(/^\/+/, '')}`, base);
  if (absolute && !site.origins.includes(url.origin)) {
    throw new TypeError(`${url.origin} is not one of the site's origins (${site.origins.join(', ')})`);
  }
  const ogUrl = site.ogUrl.endsWith('/') ? site.ogUrl : `${site.ogUrl}/`;
  return `${ogUrl}${url.pathname.slice(1)}${url.search}`;
}

/** The one tag a page adds to its `<head>`: `<meta property="og:image" content="…">`. */
export function siteTag(site: Pick<Site, 'ogUrl' | 'origins'>, page: string): string {
  const content = siteCardUrl(site, page).replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  return `<meta property="og:image" content="${content}">`;
}
