import { AppError } from '../../errors.js';
import { describeCluster, undrawableClusters } from '../text/drawable.js';
import type { FieldSpec, FieldValue } from './types.js';

/**
 * Reading one declared field from a body or a query: each type's check and normalisation, with
 * messages that name the field and what it takes. Text keeps the title's rules of old (NFC,
 * white space folded, malformed or invisible text refused); colours come out `#RRGGBB`.
 */
export type Source = 'body' | 'query';

/** The raw value, or undefined when absent; a repeated query parameter is refused. */
export function rawOf(record: Record<string, unknown>, name: string, source: Source): unknown {
  const raw = Object.hasOwn(record, name) ? record[name] : undefined;
  if (source === 'query' && Array.isArray(raw)) throw bad(`${name} must be given once`);
  return raw;
}

/** Text: normalised; undefined when absent or blank and not required. */
export function readText(
  raw: unknown,
  name: string,
  spec: { required?: boolean; maxLength: number },
): string | undefined {
  if (raw !== undefined && raw !== null && typeof raw !== 'string') throw bad(`${name} must be a string`);
  const value = typeof raw === 'string' ? raw : undefined;
  if (value !== undefined && !isValidText(value)) {
    throw bad(`${name} contains invalid text (malformed UTF-8 or an unpaired surrogate)`);
  }
  const text = value === undefined ? '' : normaliseText(value);
  if (!VISIBLE.test(text)) {
    if (!spec.required) return undefined;
    throw bad(value === undefined ? `${name} is required` : `${name} must not be empty`);
  }
  const length = [...text].length;
  if (length > spec.maxLength)
    throw bad(`${name} must be at most ${spec.maxLength} characters (got ${length})`);
  return text;
}

/** A declared field of any type, its default applied; undefined when optional and absent. */
export function readDeclared(
  raw: unknown,
  name: string,
  spec: FieldSpec,
  source: Source,
): FieldValue | undefined {
  if (spec.type === 'text') return readText(raw, name, spec) ?? spec.default;
  const blank = raw === undefined || raw === null || raw === '';
  if (blank) {
    if (spec.required) throw bad(`${name} is required`);
    return spec.default;
  }
  const got =
    typeof raw === 'string' || typeof raw === 'number'
      ? JSON.stringify(String(raw).slice(0, 40))
      : typeof raw;
  if (spec.type === 'color') return readColor(raw, name, got);
  if (spec.type === 'number') return readNumber(raw, name, spec, source, got);
  if (typeof raw !== 'string' || !spec.options.includes(raw)) {
    throw bad(`${name} must be one of: ${spec.options.join(', ')} (got ${got})`);
  }
  return raw;
}

/** `#RGB` or `#RRGGBB`, as `#RRGGBB` in capitals: one colour, one ETag. */
function readColor(raw: unknown, name: string, got: string): string {
  const m = typeof raw === 'string' ? /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.exec(raw.trim()) : null;
  if (!m) throw bad(`${name} must be a colour like #1F2937 or #FFF (got ${got})`);
  const hex = m[1]!.length === 3 ? [...m[1]!].map((c) => c + c).join('') : m[1]!;
  return `#${hex.toUpperCase()}`;
}

/** A JSON number, or digits in a query string; within min and max, whole when `integer`. */
function readNumber(
  raw: unknown,
  name: string,
  spec: Extract<FieldSpec, { type: 'number' }>,
  source: Source,
  got: string,
): number {
  const n =
    typeof raw === 'number'
      ? raw
      : source === 'query' && typeof raw === 'string' && /^-?\d+(\.\d+)?$/.test(raw.trim())
        ? Number(raw)
        : Number.NaN;
  const whole = spec.integer === true;
  if (!(Number.isFinite(n) && n >= spec.min && n <= spec.max && (!whole || Number.isInteger(n)))) {
    throw bad(
      `${name} must be a ${whole ? 'whole number' : 'number'} from ${spec.min} to ${spec.max} (got ${got})`,
    );
  }
  return n;
}

/**
 * Mathematical alphanumeric letters and digits (U+1D400–U+1D7FF: 𝐁𝐨𝐥𝐝, 𝘪𝘵𝘢𝘭𝘪𝘤, 𝟙): what
 * social-media "fancy text" generators produce for styling. No bundled font has them, so they
 * are drawn as the plain letters they stand for (NFKC maps each to one), in the card's style,
 * rather than refused.
 */
const MATH_ALPHANUMERIC = /[\u{1D400}-\u{1D7FF}]/gu;

/**
 * NFC, control characters removed, runs of white space (line breaks included) folded to one
 * space, mathematical letters made plain, trimmed: two requests that look the same render the
 * same card and share one ETag.
 */
export function normaliseText(s: string): string {
  return (
    s
      .normalize('NFC')
      .replace(MATH_ALPHANUMERIC, (c) => c.normalize('NFKC'))
      // Control characters that are white space (tab, line breaks) become spaces; the rest go.
      .replace(/\p{Cc}/gu, (c) => (/\s/.test(c) ? ' ' : ''))
      .replace(/\s+/gu, ' ')
      .trim()
  );
}

/**
 * A character that draws something. Text without one (only spaces, format characters such as
 * zero-width space and joiner, BOM and soft hyphen, or lone combining marks) counts as empty:
 * as a title it would render a blank card.
 */
const VISIBLE = /[^\p{Z}\p{Cf}\p{M}]/u;

/**
 * U+FFFD is what a decoder leaves for malformed UTF-8 (in the body or a percent-encoded query):
 * drawn, it is a box, so the caller hears about the broken input instead.
 */
function isValidText(s: string): boolean {
  // \p{Cs} in a `u` regex matches only unpaired surrogates (a pair is one code point there).
  return !/\p{Cs}/u.test(s) && !s.includes('\uFFFD');
}

/**
 * Like malformed text, text no font draws would come out as boxes, which nobody asks for: the
 * caller hears which characters, up to five of them, to remove or replace.
 */
export function checkDrawable(name: string, text: string | undefined): void {
  const clusters = text === undefined ? [] : undrawableClusters(text);
  if (clusters.length === 0) return;
  const shown = clusters.slice(0, 5).map(describeCluster).join(', ');
  const more = clusters.length > 5 ? ` and ${clusters.length - 5} more` : '';
  throw bad(`${name} contains characters no font here can draw (they would be boxes): ${shown}${more}`);
}

export function bad(message: string): AppError {
  return new AppError('bad_request', message);
}
