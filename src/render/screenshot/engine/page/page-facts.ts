/**
 * What the page is (issue 29 §4, response=json), read from the rendered page after the capture,
 * so tags a script wrote count: its title, description, language, canonical URL, theme colour,
 * icons, Open Graph and Twitter tags. Read in Cardshot's own isolated world, as data; every
 * string and list is bounded, whatever the page holds.
 */
import type { Lease } from '../browser/lease.js';
import { call, isolatedWorld } from './in-page.js';

export interface PageFacts {
  title: string | null;
  description: string | null;
  lang: string | null;
  canonical: string | null;
  themeColor: string | null;
  icons: Array<{ href: string; rel: string; sizes: string | null; type: string | null }>;
  openGraph: Record<string, string>;
  twitter: Record<string, string>;
  /**
   * Every other `<meta name|property>` by lower-cased name (`cardshot:title`, `author`), as the
   * sites' head parser keeps them, for a `render: "browser"` site's field mapping and overrides.
   * Bounded (OTHER_MAX names, OTHER_MAX_CHARS in all: it is cached with the image) and not part
   * of the response=json answer, which lists its fields.
   */
  other?: Record<string, string>;
}

/** At most this many other meta names, and this many characters of their values in all. */
export const OTHER_MAX = 50;
export const OTHER_MAX_CHARS = 8192;

const READ = `function () {
  const cut = (s) => (s == null ? null : String(s).trim().slice(0, 2048) || null);
  const meta = (sel) => cut(document.querySelector(sel)?.getAttribute('content'));
  // og: tags belong in property=, twitter: tags in name=; pages mix them up and crawlers (and the
  // sites' head parser) accept both, so either attribute is read, the name lower-cased.
  const tags = (prefix) => {
    const out = {};
    for (const m of document.querySelectorAll('meta[property], meta[name]')) {
      const name = (m.getAttribute('property') || m.getAttribute('name') || '').trim().toLowerCase();
      if (!name.startsWith(prefix)) continue;
      const k = name.slice(prefix.length).slice(0, 100);
      const v = cut(m.getAttribute('content'));
      if (k && v && !(k in out) && Object.keys(out).length < 50) out[k] = v;
    }
    return out;
  };
  const canonical = document.querySelector('link[rel~="canonical"][href]');
  const icons = [...document.querySelectorAll('link[rel~="icon"][href], link[rel="apple-touch-icon"][href]')]
    .slice(0, 20)
    .map((l) => ({ href: cut(l.href), rel: cut(l.getAttribute('rel')), sizes: cut(l.getAttribute('sizes')), type: cut(l.getAttribute('type')) }));
  const other = {};
  let names = 0;
  let chars = 0;
  for (const m of document.querySelectorAll('meta[name], meta[property]')) {
    const k = (m.getAttribute('property') || m.getAttribute('name') || '').trim().toLowerCase().slice(0, 100);
    if (!k || /^(og|twitter):/.test(k) || k === 'description' || k === 'theme-color' || k === 'robots' || k in other) continue;
    const v = cut(m.getAttribute('content'));
    if (!v) continue;
    if (names >= ${OTHER_MAX} || chars + v.length > ${OTHER_MAX_CHARS}) break;
    other[k] = v;
    names += 1;
    chars += v.length;
  }
  return {
    title: cut(document.title),
    description: meta('meta[name="description" i]'),
    lang: cut(document.documentElement.getAttribute('lang')),
    canonical: canonical ? cut(canonical.href) : null,
    themeColor: meta('meta[name="theme-color" i]'),
    icons,
    openGraph: tags('og:'),
    twitter: tags('twitter:'),
    other,
  };
}`;

/** The page's facts as it was captured. */
export async function readPageFacts(lease: Lease): Promise<PageFacts> {
  return call<PageFacts>(lease, await isolatedWorld(lease), READ, []);
}
