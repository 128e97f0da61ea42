/**
 * Readers of the text options (option-table.ts, type `text`): each checks one value and returns
 * it normalised, so two spellings of one request share a cache entry, or throws the 400 that
 * names the option and what it takes.
 */
import { AppError } from '../../errors.js';

/** Most pages a `pageRanges` value may list parts of. */
export const PAGE_RANGES_MAX_PARTS = 20;
/** The largest page number a range may name (far beyond CARDSHOT_PDF_MAX_PAGES; bounds the arithmetic). */
const PAGE_NUMBER_MAX = 100_000;

/** CSS pixels per unit, as Chromium's print settings count them (96 per inch). */
const PX_PER: Readonly<Record<string, number>> = { px: 1, in: 96, cm: 96 / 2.54, mm: 96 / 25.4 };
/** The widest margin: two inches on each side still leaves an A5 page (5.8 in) a column to print. */
const MARGIN_MAX_PX = 192;

/**
 * `margin`: one CSS length for all four sides, or four (top, right, bottom, left), in px, in,
 * cm or mm (0 needs no unit), each at most 2 in. Normalised to lower case, one value when the
 * four are equal.
 */
export function readMargin(value: string, name: string): string {
  const parts = value.trim().toLowerCase().split(/\s+/);
  const what = `${name} must be a CSS length (px, in, cm or mm; for example 10mm), or four of them for top, right, bottom and left`;
  if (parts.length !== 1 && parts.length !== 4) throw bad(`${what} (got ${shown(value)})`);
  const lengths = parts.map((p) => {
    const m = /^(\d{1,4}(?:\.\d{1,3})?)(px|in|cm|mm)?$/.exec(p);
    if (!m || (m[2] === undefined && Number(m[1]) !== 0)) throw bad(`${what} (got ${shown(value)})`);
    const px = Number(m[1]) * (PX_PER[m[2] ?? 'px'] ?? 1);
    if (px > MARGIN_MAX_PX + 1e-9)
      throw bad(`${name}: each side must be at most 2in (50.8mm) (got ${shown(p)})`);
    return m[2] === undefined ? '0' : `${Number(m[1])}${m[2]}`;
  });
  return lengths.every((l) => l === lengths[0]) ? lengths[0]! : lengths.join(' ');
}

/** The four sides of a normalised margin, as Playwright takes them. */
export function marginSides(margin: string): { top: string; right: string; bottom: string; left: string } {
  const p = margin.split(' ');
  const [top, right, bottom, left] = p.length === 4 ? p : [p[0], p[0], p[0], p[0]];
  return { top: top!, right: right!, bottom: bottom!, left: left! };
}

/** An inclusive range of page numbers, from 1. */
export type PageRange = readonly [number, number];

/**
 * `pageRanges`: page numbers and ranges, comma-separated (`1-5, 8, 11-13`), at most 20 parts.
 * Normalised: sorted, overlaps merged, no spaces (`1-5,8,11-13`).
 */
export function readPageRanges(value: string, name: string): string {
  const parts = value.replace(/\s+/g, '').split(',');
  const what = `${name} must be page numbers or ranges from 1, comma-separated (for example 1-5, 8, 11-13)`;
  if (parts.length > PAGE_RANGES_MAX_PARTS) {
    throw bad(`${name} must have at most ${PAGE_RANGES_MAX_PARTS} parts (got ${parts.length})`);
  }
  const ranges = parts.map((p): PageRange => {
    const m = /^(\d{1,6})(?:-(\d{1,6}))?$/.exec(p);
    const from = Number(m?.[1]);
    const to = m?.[2] === undefined ? from : Number(m[2]);
    if (!m || from < 1 || to < from || to > PAGE_NUMBER_MAX) throw bad(`${what} (got ${shown(value)})`);
    return [from, to];
  });
  return formatRanges(mergeRanges(ranges));
}

/** Ranges sorted and merged where they overlap or touch. */
export function mergeRanges(ranges: readonly PageRange[]): PageRange[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [from, to] of sorted) {
    const last = out.at(-1);
    if (last && from <= last[1] + 1) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}

/** A normalised ranges string read back. */
export function parseRanges(ranges: string): PageRange[] {
  return ranges.split(',').map((p) => {
    const [from, to] = p.split('-').map(Number);
    return [from!, to ?? from!];
  });
}

/** Ranges written as Chromium takes them. */
export function formatRanges(ranges: readonly PageRange[]): string {
  return ranges.map(([from, to]) => (from === to ? String(from) : `${from}-${to}`)).join(',');
}

/** The first `count` pages `ranges` select (all pages from 1 when none are given). */
export function firstPages(ranges: string | undefined, count: number): string {
  const all: readonly PageRange[] = ranges ? parseRanges(ranges) : [[1, PAGE_NUMBER_MAX]];
  const out: PageRange[] = [];
  let left = count;
  for (const [from, to] of all) {
    if (left <= 0) break;
    const take = Math.min(left, to - from + 1);
    out.push([from, from + take - 1]);
    left -= take;
  }
  return formatRanges(out);
}

export function shown(v: string): string {
  return JSON.stringify(v.slice(0, 40));
}

export function bad(message: string): AppError {
  return new AppError('bad_request', message);
}

/** Longest locale tag taken (BCP 47 allows long ones; real ones are short). */
export const LOCALE_MAX_LENGTH = 35;

/** `locale`: a BCP 47 language tag, in its canonical form (`de-de` → `de-DE`). */
export function readLocale(value: string, name: string): string {
  const v = value.trim();
  try {
    const [canonical] = Intl.getCanonicalLocales(v);
    if (canonical && /^[A-Za-z0-9-]+$/.test(canonical)) return canonical;
  } catch {
    // Refused below.
  }
  throw bad(`${name} must be a BCP 47 language tag (for example de-DE or pt-BR) (got ${shown(v)})`);
}

/**
 * Zones already checked, as given → canonical. Making a DateTimeFormat to check one took ~0.3 ms
 * of the request's thread each time (profiled); ICU knows ~600 zones and their aliases, so the
 * map is bounded, and a client sending endless variants only stops being remembered.
 */
const knownZones = new Map<string, string>();
const KNOWN_ZONES_MAX = 2_000;

/** `timezone`: an IANA time zone Node's ICU (the same tables as Chromium's) knows, canonical case. */
export function readTimezone(value: string, name: string): string {
  const v = value.trim();
  const known = knownZones.get(v);
  if (known !== undefined) return known;
  try {
    const zone = new Intl.DateTimeFormat('en-US', { timeZone: v }).resolvedOptions().timeZone;
    if (knownZones.size < KNOWN_ZONES_MAX) knownZones.set(v, zone);
    return zone;
  } catch {
    throw bad(
      `${name} ${shown(v)} is not a known IANA time zone (for example Europe/Berlin or America/New_York)`,
    );
  }
}

/** The largest stylesheet `css` takes, in bytes of UTF-8. */
export const CSS_MAX_BYTES = 64 * 1024;

/** `css`: a stylesheet of at most 64 KB, kept as given (it is the page's business what it means). */
export function readCss(value: string, name: string): string {
  const bytes = Buffer.byteLength(value);
  if (bytes > CSS_MAX_BYTES) throw bad(`${name} must be at most ${CSS_MAX_BYTES} bytes (got ${bytes})`);
  return value;
}
