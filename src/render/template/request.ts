import { AppError } from '../../errors.js';
import { editDistance } from '../../lib/edit-distance.js';
import { DEFAULT_QUALITY, IMAGE_FORMATS, type ImageFormat, type ImageOutput } from '../format.js';
import { describeCluster, undrawableClusters } from '../text/drawable.js';
import { type BuiltinName, isTemplateName, TEMPLATE_NAMES, TEMPLATES } from './registry.js';
import type { TemplateName } from './types.js';

/**
 * The template request: one field table drives validation, normalisation, the docs and the
 * OpenAPI schema, so the limits cannot drift apart. Validation is hand-written rather than
 * left to JSON Schema so every refusal names the field and the fix, and so the CLI's batch
 * renderer shares it without an HTTP layer.
 */
export const FIELDS = {
  template: { required: true, maxLength: 20, description: `One of ${TEMPLATE_NAMES.join(', ')}.` },
  title: { required: true, maxLength: 200, description: 'Main headline drawn on the image.' },
  subtitle: { required: false, maxLength: 300, description: 'Supporting text drawn under the title.' },
  brand: {
    required: false,
    maxLength: 60,
    description: 'Brand label; drawn only by templates that support it.',
  },
  imageUrl: {
    required: false,
    maxLength: 2048,
    description: 'Public http(s) address of an image; used only by templates that draw artwork.',
  },
} as const;
export type FieldName = keyof typeof FIELDS;
const FIELD_NAMES = Object.keys(FIELDS) as FieldName[];

/** A validated, normalised request. Optional fields are absent rather than empty. */
export interface TemplateRequest {
  template: TemplateName;
  title: string;
  subtitle?: string;
  brand?: string;
  imageUrl?: string;
  /** JPEG, WebP or AVIF instead of PNG (absent: PNG, the card as it always was). */
  output?: ImageOutput;
}

/** The output fields, beside the card's own: the image format and its quality. */
export const OUTPUT_FIELDS = ['format', 'quality'] as const;

/**
 * Validates a JSON body or a query string object. `extraAllowed` lists parameters another
 * layer consumes (auth on GET), which are ignored here rather than refused.
 */
export function parseTemplateRequest(
  input: unknown,
  source: 'body' | 'query',
  extraAllowed: ReadonlySet<string> = new Set(),
): TemplateRequest {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw bad(source === 'body' ? 'Request body must be a JSON object' : 'Query string is missing');
  }
  const record = input as Record<string, unknown>;
  checkKeys(record, source, extraAllowed);

  const out: Partial<Record<FieldName, string>> = {};
  for (const name of FIELD_NAMES) {
    const text = readField(record, name, source);
    if (text !== undefined) out[name] = text;
  }

  const template = out.template as string;
  if (!isTemplateName(template)) {
    throw bad(
      `template must be one of: ${TEMPLATE_NAMES.join(', ')} (got ${JSON.stringify(template.slice(0, 40))})`,
    );
  }
  if (out.imageUrl !== undefined && !isHttpUrl(out.imageUrl)) {
    throw bad('imageUrl must be an absolute http or https URL');
  }
  checkDrawable(out, template);
  const output = readOutput(record, source);
  return { ...(out as unknown as TemplateRequest), ...(output ? { output } : {}) };
}

/**
 * `format` and `quality`, as the screenshot route takes them: a quality only with a lossy
 * format; the format's default quality is the same request as none. In a JSON body quality is
 * a number, in a query string digits.
 */
function readOutput(record: Record<string, unknown>, source: 'body' | 'query'): ImageOutput | undefined {
  const format = record.format;
  const quality = record.quality;
  if (source === 'query' && (Array.isArray(format) || Array.isArray(quality))) {
    throw bad(`${Array.isArray(format) ? 'format' : 'quality'} must be given once`);
  }
  const f = format === undefined || format === null || format === '' ? 'png' : format;
  if (typeof f !== 'string' || !(IMAGE_FORMATS as readonly string[]).includes(f)) {
    const got = typeof f === 'string' ? JSON.stringify(f.slice(0, 40)) : typeof f;
    throw bad(`format must be one of: ${IMAGE_FORMATS.join(', ')} (got ${got})`);
  }
  const q = readQuality(quality, source);
  if (q !== undefined && f === 'png') {
    throw bad('quality applies to jpeg, webp and avif only; leave it out, or add format=jpeg, webp or avif');
  }
  if (f === 'png') return undefined;
  const lossy = f as Exclude<ImageFormat, 'png'>;
  return q === undefined || q === DEFAULT_QUALITY[lossy] ? { format: lossy } : { format: lossy, quality: q };
}

function readQuality(raw: unknown, source: 'body' | 'query'): number | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const n =
    typeof raw === 'number'
      ? raw
      : source === 'query' && typeof raw === 'string' && /^\d{1,3}$/.test(raw)
        ? Number(raw)
        : Number.NaN;
  if (!(Number.isInteger(n) && n >= 1 && n <= 100)) {
    const got =
      typeof raw === 'string' || typeof raw === 'number'
        ? JSON.stringify(String(raw).slice(0, 40))
        : typeof raw;
    throw bad(`quality must be a whole number from 1 to 100 (got ${got})`);
  }
  return n;
}

/** Unknown keys are refused before any value is read, then the query's `v`. */
function checkKeys(
  record: Record<string, unknown>,
  source: 'body' | 'query',
  extraAllowed: ReadonlySet<string>,
): void {
  for (const key of Object.keys(record)) {
    if (source === 'query' && key === VERSION_PARAM) continue;
    const known = Object.hasOwn(FIELDS, key) || (OUTPUT_FIELDS as readonly string[]).includes(key);
    if (!known && !extraAllowed.has(key)) throw bad(unknownFieldMessage(key, source));
  }
  if (source === 'query' && record[VERSION_PARAM] !== undefined) checkVersion(record[VERSION_PARAM]);
}

/** One field, checked and normalised; undefined when an optional field is absent or blank. */
function readField(
  record: Record<string, unknown>,
  name: FieldName,
  source: 'body' | 'query',
): string | undefined {
  const raw = record[name];
  if (source === 'query' && Array.isArray(raw)) throw bad(`${name} must be given once`);
  if (raw !== undefined && raw !== null && typeof raw !== 'string') throw bad(`${name} must be a string`);
  const value = typeof raw === 'string' ? raw : undefined;
  if (value !== undefined && !isValidText(value)) {
    throw bad(`${name} contains invalid text (malformed UTF-8 or an unpaired surrogate)`);
  }
  const text = value === undefined ? '' : normaliseText(value);
  const spec = FIELDS[name];
  if (!VISIBLE.test(text)) {
    if (!spec.required) return undefined;
    if (name === 'template') throw bad(`template is required; use one of: ${TEMPLATE_NAMES.join(', ')}`);
    throw bad(value === undefined ? `${name} is required` : `${name} must not be empty`);
  }
  const length = [...text].length;
  if (length > spec.maxLength && name !== 'template') {
    throw bad(`${name} must be at most ${spec.maxLength} characters (got ${length})`);
  }
  return text;
}

/** Last, and only for fields the template draws: an ignored brand may hold anything. */
function checkDrawable(out: Partial<Record<FieldName, string>>, template: BuiltinName): void {
  const drawn: FieldName[] = [
    'title',
    'subtitle',
    ...(TEMPLATES[template].uses.brand ? (['brand'] as const) : []),
  ];
  for (const name of drawn) {
    const text = out[name];
    const missing = text === undefined ? [] : undrawableClusters(text);
    if (missing.length > 0) throw bad(undrawableMessage(name, missing));
  }
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
function undrawableMessage(name: FieldName, clusters: string[]): string {
  const shown = clusters.slice(0, 5).map(describeCluster).join(', ');
  const more = clusters.length > 5 ? ` and ${clusters.length - 5} more` : '';
  return `${name} contains characters no font here can draw (they would be boxes): ${shown}${more}`;
}

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * `v` on a GET URL: a version the publisher picks (v=2) so crawlers and CDNs, which cache an
 * og:image by its URL, fetch a card again after a design change. It changes the URL only, never
 * the card: the card's ETag is already derived from everything that draws it.
 */
export const VERSION_PARAM = 'v';
const VERSION = /^[A-Za-z0-9._-]{1,64}$/;

function checkVersion(raw: unknown): void {
  if (Array.isArray(raw)) throw bad('v must be given once');
  if (typeof raw !== 'string' || !VERSION.test(raw)) {
    throw bad('v must be 1 to 64 letters, digits, dots, dashes or underscores');
  }
}

function unknownFieldMessage(key: string, source: 'body' | 'query'): string {
  const shown = JSON.stringify(key.slice(0, 40));
  const near = FIELD_NAMES.find((f) => f.toLowerCase() === key.toLowerCase() || editDistance(f, key) <= 2);
  const hint = near ? ` (did you mean "${near}"?)` : '';
  const what = source === 'body' ? 'field' : 'query parameter';
  const allowed = [...FIELD_NAMES, ...OUTPUT_FIELDS, ...(source === 'query' ? [VERSION_PARAM] : [])];
  return `Unknown ${what} ${shown}${hint}. Allowed: ${allowed.join(', ')}`;
}

function bad(message: string): AppError {
  return new AppError('bad_request', message);
}
