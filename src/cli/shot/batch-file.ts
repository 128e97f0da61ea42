import { FILE_EXTENSION as EXTENSION, type ImageFormat } from '../../client/options.js';

/** One page of a batch, with the line it came from (numbered from 1, as an editor shows it). */
export interface BatchEntry {
  line: number;
  url: string;
}

/** At most this many URLs in one batch file: a typo'd file (a log, a dump) fails fast. */
export const MAX_BATCH_URLS = 100_000;

/**
 * The URLs of a batch file: one per line; blank lines and lines starting with `#` are skipped,
 * and so is a ` # comment` after a URL (a URL holds no spaces, so the space tells a comment from
 * a #fragment).
 */
export function parseBatchFile(text: string): BatchEntry[] {
  const entries: BatchEntry[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, i) => {
    const url = raw.replace(/\s+#.*$/, '').trim();
    if (url === '' || url.startsWith('#')) return;
    entries.push({ line: i + 1, url });
  });
  if (entries.length > MAX_BATCH_URLS) {
    throw new Error(`a batch holds at most ${MAX_BATCH_URLS} URLs (this one ${entries.length})`);
  }
  return entries;
}

const MAX_NAME = 120;

/**
 * File names for the pages of a batch, in file order, so a name never depends on which capture
 * finished first: the host, path and query as one slug (`example.com-blog-post-1.webp`), with
 * `-2`, `-3`… for a URL that comes again or slugs to the same name.
 */
export function batchFileNames(entries: readonly BatchEntry[], format: ImageFormat): string[] {
  const used = new Set<string>();
  return entries.map((e) => {
    const stem = slugOf(e.url);
    let name = `${stem}.${EXTENSION[format]}`;
    for (let n = 2; used.has(name); n++) name = `${stem}-${n}.${EXTENSION[format]}`;
    used.add(name);
    return name;
  });
}

function slugOf(raw: string): string {
  let text = raw;
  try {
    const u = new URL(raw);
    text = `${u.hostname}${safeDecode(u.pathname)}${safeDecode(u.search)}`;
  } catch {
    // Not a URL: the server refuses it and no file is written, but the name stays unique.
  }
  const slug = text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, MAX_NAME)
    .replace(/[-.]+$/, '');
  return slug || 'page';
}

/** Percent-escapes decoded, so `stra%C3%9Fe` reads as the word it is; left as is when malformed. */
function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
