/**
 * The page head, read with htmlparser2's tokenizer (never with regular expressions: attributes
 * in any order and quoting, entities, comments and scripts that mention `</head>` are the
 * parser's job). Two passes over at most the first megabyte: a streaming one over the raw
 * bytes as Latin-1 (every byte one character, so ASCII markup reads the same in any
 * ASCII-compatible charset) that says where the head ends and which charset a meta tag
 * declares, and one over the decoded text that collects the tags.
 */
import { TextDecoder } from 'node:util';
import { Parser } from 'htmlparser2';

/** What a page's head says about it. Values are trimmed, whitespace collapsed; absent ones are null. */
export interface PageMeta {
  title: string | null;
  description: string | null;
  /** `og:*` tags by full name (`og:image`, `og:image:width`); the first of each wins, as crawlers read them. */
  og: Record<string, string>;
  /** `twitter:*` tags by full name. */
  twitter: Record<string, string>;
  canonical: string | null;
  icons: Array<{ rel: string; href: string; sizes: string | null; type: string | null }>;
  themeColor: string | null;
  lang: string | null;
  /** `<meta name="robots">`, lower-cased. */
  robots: string | null;
  /**
   * Every other `<meta name|property>` by lower-cased name (`cardshot:title`, `author`): what a
   * site's field mapping may name. The first of each wins; at most MAX_OTHER names are kept.
   */
  other?: Record<string, string>;
}

const MAX_OTHER = 100;

/**
 * Where the head ends: `</head>` or `<body>`. Not at the first body-only tag, as an HTML5 parser
 * would: crawlers scan on past a stray `<div>` or a tracking pixel's `<noscript><img>` in the
 * head, and stopping there would report tags missing that every network reads.
 */
const BODY_START = new Set(['body']);

/** Watches raw bytes for the end of the head and a declared charset. */
export interface HeadWatcher {
  /** Feeds the next bytes; true once the head has ended. */
  feed(part: Buffer): boolean;
  /** The charset a `<meta charset>` or `<meta http-equiv="content-type">` declared, if any. */
  declaredCharset(): string | null;
}

/** A watcher for one page. */
export function watchHead(): HeadWatcher {
  let ended = false;
  let charset: string | null = null;
  const parser = new Parser(
    {
      onopentagname(name) {
        if (BODY_START.has(name)) ended = true;
      },
      onopentag(name, attrs) {
        if (name !== 'meta' || charset !== null) return;
        if (attrs.charset) charset = attrs.charset.trim().toLowerCase();
        else if (attrs['http-equiv']?.toLowerCase() === 'content-type' && attrs.content) {
          charset = charsetOfContentType(attrs.content);
        }
      },
      onclosetag(name) {
        if (name === 'head') ended = true;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  return {
    feed(part) {
      if (!ended) parser.write(part.toString('latin1'));
      return ended;
    },
    declaredCharset: () => charset,
  };
}

/** The `charset=` parameter of a Content-Type value, lower-cased, or null. */
export function charsetOfContentType(value: string | undefined): string | null {
  if (!value) return null;
  for (const param of value.split(';').slice(1)) {
    const [k, v] = param.split('=', 2);
    if (k?.trim().toLowerCase() === 'charset' && v)
      return v
        .trim()
        .replace(/^["']|["']$/g, '')
        .toLowerCase();
  }
  return null;
}

/**
 * Decodes the head's bytes: the header's charset, else the meta tag's, else a BOM, else UTF-8
 * if the bytes are valid UTF-8, else windows-1252 (what browsers assume for Western pages).
 * An unknown label falls through to the next source. Returns the text and the charset used.
 */
export function decodeHead(
  bytes: Buffer,
  fromHeader: string | null,
  fromMeta: string | null,
): { text: string; charset: string } {
  for (const label of [fromHeader, fromMeta]) {
    if (!label) continue;
    const decoder = decoderFor(label);
    if (decoder) return { text: decoder.decode(bytes), charset: decoder.encoding };
  }
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return { text: new TextDecoder('utf-8').decode(bytes), charset: 'utf-8' };
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), charset: 'utf-8' };
  } catch {
    return { text: new TextDecoder('windows-1252').decode(bytes), charset: 'windows-1252' };
  }
}

function decoderFor(label: string): TextDecoder | null {
  try {
    return new TextDecoder(label);
  } catch {
    return null;
  }
}

/** Collects the head's tags from decoded HTML (parsing stops where the head ends). */
export function parseHead(html: string): PageMeta {
  const meta: PageMeta = {
    title: null,
    description: null,
    og: {},
    twitter: {},
    canonical: null,
    icons: [],
    themeColor: null,
    lang: null,
    robots: null,
  };
  let inTitle = false;
  let title = '';
  let done = false;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (done) return;
        if (BODY_START.has(name)) done = true;
        else if (name === 'html' && attrs.lang) meta.lang = clean(attrs.lang);
        else if (name === 'title' && meta.title === null) inTitle = true;
        else if (name === 'meta') readMeta(meta, attrs);
        else if (name === 'link') readLink(meta, attrs);
      },
      ontext(text) {
        if (inTitle) title += text;
      },
      onclosetag(name) {
        if (name === 'title' && inTitle) {
          inTitle = false;
          meta.title = clean(title);
        }
        if (name === 'head') done = true;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return meta;
}

function readMeta(meta: PageMeta, attrs: Record<string, string>): void {
  const content = attrs.content === undefined ? null : clean(attrs.content);
  // og: tags belong in property=, twitter: tags in name=; pages mix them up and crawlers accept both.
  const key = (attrs.property ?? attrs.name ?? '').trim().toLowerCase();
  if (!key || content === null) return;
  if (key.startsWith('og:')) meta.og[key] ??= content;
  else if (key.startsWith('twitter:')) meta.twitter[key] ??= content;
  else if (key === 'description') meta.description ??= content;
  else if (key === 'theme-color') meta.themeColor ??= content;
  else if (key === 'robots') meta.robots ??= content.toLowerCase();
  else {
    meta.other ??= {};
    if (Object.keys(meta.other).length < MAX_OTHER) meta.other[key] ??= content;
  }
}

function readLink(meta: PageMeta, attrs: Record<string, string>): void {
  const rels = (attrs.rel ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const href = attrs.href?.trim();
  if (!href) return;
  if (rels.includes('canonical')) meta.canonical ??= href;
  const icon = rels.find(
    (r) => r === 'icon' || r === 'apple-touch-icon' || r === 'apple-touch-icon-precomposed',
  );
  if (icon) meta.icons.push({ rel: icon, href, sizes: attrs.sizes ?? null, type: attrs.type ?? null });
}

/** Whitespace collapsed and trimmed; an empty value counts as absent. */
function clean(s: string): string | null {
  const t = s.replace(/\s+/g, ' ').trim();
  return t === '' ? null : t;
}
