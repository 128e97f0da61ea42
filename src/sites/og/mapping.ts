/**
 * From a page's head to a card: the site's field mapping (`og:title|title`: sources tried in
 * order), then the page's own `<meta name="cardshot:title|subtitle|template|theme">` tags, which
 * win over the mapping. A page with no title has nothing to draw: the caller gives it the
 * site's fallback card.
 */
import type { PageMeta } from '../head/parse.js';
import type { FieldMapping } from '../store.js';
import { cutText } from '../unfurl/analyse-page.js';

/** What the card is drawn from. */
export interface PageCard {
  title: string;
  subtitle?: string;
  brand?: string;
  /** Absolute (resolved against the page), http(s) only. */
  imageUrl?: string;
  /** From `cardshot:template` / `cardshot:theme`; the caller checks them. */
  template?: string;
  theme?: string;
}

const MAX = { title: 200, subtitle: 300, brand: 60 } as const;

/** The card a page's head asks for, or null when it yields no title. */
export function cardFromHead(meta: PageMeta, fields: FieldMapping, pageUrl: string): PageCard | null {
  const source = (spec: string | null) => (spec === null ? undefined : firstOf(meta, spec, pageUrl));
  const title = own(meta, 'cardshot:title') ?? source(fields.title);
  if (!title) return null;
  const subtitle = own(meta, 'cardshot:subtitle') ?? source(fields.subtitle);
  const brand = source(fields.brand);
  const image = source(fields.imageUrl);
  const imageUrl = image ? absoluteHttp(image, pageUrl) : undefined;
  const template = own(meta, 'cardshot:template');
  const theme = own(meta, 'cardshot:theme');
  return {
    title: cutText(title, MAX.title),
    ...(subtitle ? { subtitle: cutText(subtitle, MAX.subtitle) } : {}),
    ...(brand ? { brand: cutText(brand, MAX.brand) } : {}),
    ...(imageUrl ? { imageUrl } : {}),
    ...(template ? { template: template.toLowerCase() } : {}),
    ...(theme ? { theme: theme.toLowerCase() } : {}),
  };
}

/** The first source of `spec` with a value. */
function firstOf(meta: PageMeta, spec: string, pageUrl: string): string | undefined {
  for (const name of spec.split('|')) {
    const v = sourceValue(meta, name, pageUrl);
    if (v) return v;
  }
  return undefined;
}

function sourceValue(meta: PageMeta, name: string, pageUrl: string): string | undefined {
  if (name === 'title') return meta.title ?? undefined;
  if (name === 'description') return meta.description ?? undefined;
  if (name === 'host') return new URL(pageUrl).host;
  if (name.startsWith('og:')) return hasOwn(meta.og, name);
  if (name.startsWith('twitter:')) return hasOwn(meta.twitter, name);
  return own(meta, name);
}

function own(meta: PageMeta, name: string): string | undefined {
  return meta.other ? hasOwn(meta.other, name) : undefined;
}

function hasOwn(record: Record<string, string>, key: string): string | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function absoluteHttp(value: string, base: string): string | undefined {
  try {
    const url = new URL(value, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
