import { editDistance } from '../../lib/edit-distance.js';
import { DEFAULT_QUALITY, IMAGE_FORMATS, type ImageFormat, type ImageOutput } from '../format.js';
import { TEMPLATE_NAMES } from './registry.js';
import {
  bad,
  checkDrawable,
  normaliseText,
  rawOf,
  readDeclared,
  readText,
  type Source,
} from './request-fields.js';
import { isSizeName, SIZE_NAMES } from './sizes.js';
import type { FieldValue, SizeName, TemplateDefinition, TemplateName, TemplateRegistry } from './types.js';

export { normaliseText } from './request-fields.js';

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

/** A validated, normalised request. Optional fields are absent rather than empty. */
export interface TemplateRequest {
  template: TemplateName;
  /** Every declared field with a value: validated, normalised, defaults applied. */
  fields: Record<string, FieldValue>;
  brand?: string;
  imageUrl?: string;
  /** One of the template's sizes (its first when the request names none). */
  size: SizeName;
  /** `theme=none`: the template's own look even when the account has a theme. */
  theme?: 'none';
  /** JPEG, WebP or AVIF instead of PNG (absent: PNG, the card as it always was). */
  output?: ImageOutput;
}

/** The output fields, beside the card's own: the image format and its quality. */
export const OUTPUT_FIELDS = ['format', 'quality'] as const;

/** The request keys every template takes besides its declared fields, in the order errors list them. */
const CARD_KEYS = ['brand', 'imageUrl', 'size', 'theme'] as const;

/**
 * Validates a JSON body or a query string object against the named template's declaration.
 * `extraAllowed` lists parameters another layer consumes (auth on GET), which are ignored here
 * rather than refused.
 */
export function parseTemplateRequest(
  input: unknown,
  source: Source,
  extraAllowed: ReadonlySet<string> = new Set(),
  registry: TemplateRegistry,
): TemplateRequest {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw bad(source === 'body' ? 'Request body must be a JSON object' : 'Query string is missing');
  }
  const record = input as Record<string, unknown>;
  const named = rawOf(record, 'template', source);
  const def = typeof named === 'string' ? registry.get(normaliseText(named)) : undefined;
  // Keys first, as always: against the template's fields, or all templates' when it is unknown.
  checkKeys(record, source, extraAllowed, def ? [def] : registry.list());
  if (!def) throw unknownTemplate(named, registry);

  const fields: Record<string, FieldValue> = {};
  for (const [name, spec] of Object.entries(def.fields)) {
    const value = readDeclared(rawOf(record, name, source), name, spec, source);
    if (value !== undefined) fields[name] = value;
  }
  const brand = readText(rawOf(record, 'brand', source), 'brand', { maxLength: 60 });
  const imageUrl = readText(rawOf(record, 'imageUrl', source), 'imageUrl', { maxLength: 2048 });
  if (imageUrl !== undefined && !isHttpUrl(imageUrl)) {
    throw bad('imageUrl must be an absolute http or https URL');
  }
  // Last, and only for text the template draws: an ignored brand may hold anything.
  for (const [name, spec] of Object.entries(def.fields)) {
    if (spec.type === 'text') checkDrawable(name, fields[name] as string | undefined);
  }
  if (def.uses.brand) checkDrawable('brand', brand);
  const output = readOutput(record, source);
  const size = readSize(rawOf(record, 'size', source), def);
  const theme = readTheme(rawOf(record, 'theme', source));
  return {
    template: def.name,
    fields,
    ...(brand !== undefined ? { brand } : {}),
    ...(imageUrl !== undefined ? { imageUrl } : {}),
    size,
    ...(theme ? { theme } : {}),
    ...(output ? { output } : {}),
  };
}

function unknownTemplate(named: unknown, registry: TemplateRegistry) {
  const names = registry.names().join(', ');
  if (named !== undefined && named !== null && typeof named !== 'string')
    return bad('template must be a string');
  const text = typeof named === 'string' ? normaliseText(named) : '';
  if (text === '') return bad(`template is required; use one of: ${names}`);
  return bad(`template must be one of: ${names} (got ${JSON.stringify(text.slice(0, 40))})`);
}

/** `size`: one of the template's sizes; an unknown word lists every size, a known one the template's. */
function readSize(raw: unknown, def: TemplateDefinition): SizeName {
  if (raw === undefined || raw === null || raw === '') return def.sizes[0] ?? 'og';
  const got = typeof raw === 'string' ? JSON.stringify(raw.slice(0, 40)) : typeof raw;
  if (typeof raw !== 'string' || !isSizeName(raw)) {
    const own =
      def.sizes.length < SIZE_NAMES.length ? `; template ${def.name} supports ${def.sizes.join(', ')}` : '';
    throw bad(`size must be one of: ${SIZE_NAMES.join(', ')} (got ${got})${own}`);
  }
  if (!def.sizes.includes(raw)) {
    throw bad(
      `size must be one of: ${def.sizes.join(', ')} (template ${def.name} does not lay out at ${raw})`,
    );
  }
  return raw;
}

/** `theme`: only `none` (the template's own look); the account's theme applies otherwise. */
function readTheme(raw: unknown): 'none' | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (raw === 'none') return 'none';
  const got = typeof raw === 'string' ? JSON.stringify(raw.slice(0, 40)) : typeof raw;
  throw bad(
    `theme must be "none" (the template's own look) or left out for the account's theme (got ${got})`,
  );
}

/** The request as the flat body the API takes (for curl lines, batch rows and links). */
export function requestBody(
  r: TemplateRequest,
  def?: Pick<TemplateDefinition, 'sizes'>,
): Record<string, string | number> {
  const body: Record<string, string | number> = { template: r.template, ...r.fields };
  if (r.brand !== undefined) body.brand = r.brand;
  if (r.imageUrl !== undefined) body.imageUrl = r.imageUrl;
  if (r.size !== (def?.sizes[0] ?? 'og')) body.size = r.size;
  if (r.theme) body.theme = r.theme;
  if (r.output) {
    body.format = r.output.format;
    if (r.output.quality !== undefined) body.quality = r.output.quality;
  }
  return body;
}

/**
 * `format` and `quality`, as the screenshot route takes them: a quality only with a lossy
 * format; the format's default quality is the same request as none. In a JSON body quality is
 * a number, in a query string digits.
 */
function readOutput(record: Record<string, unknown>, source: Source): ImageOutput | undefined {
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

function readQuality(raw: unknown, source: Source): number | undefined {
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
  source: Source,
  extraAllowed: ReadonlySet<string>,
  templates: readonly TemplateDefinition[],
): void {
  const allowed = allowedKeys(templates, source);
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key) && !extraAllowed.has(key)) {
      throw bad(unknownFieldMessage(key, source, allowed, templates));
    }
  }
  if (source === 'query' && record[VERSION_PARAM] !== undefined) checkVersion(record[VERSION_PARAM]);
}

/** `template`, the templates' fields in declared order, the card keys, the output keys (and `v`). */
function allowedKeys(templates: readonly TemplateDefinition[], source: Source): string[] {
  const fields = [...new Set(templates.flatMap((t) => Object.keys(t.fields)))];
  return [
    'template',
    ...fields,
    ...CARD_KEYS,
    ...OUTPUT_FIELDS,
    ...(source === 'query' ? [VERSION_PARAM] : []),
  ];
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

function unknownFieldMessage(
  key: string,
  source: Source,
  allowed: readonly string[],
  templates: readonly TemplateDefinition[],
): string {
  const shown = JSON.stringify(key.slice(0, 40));
  // Did-you-mean over that template's own fields first, then the other keys.
  const fields = templates.flatMap((t) => Object.keys(t.fields));
  const near = (list: readonly string[]) =>
    list.find((f) => f.toLowerCase() === key.toLowerCase() || editDistance(f, key) <= 2);
  const match = near(fields) ?? near(allowed);
  const hint = match ? ` (did you mean "${match}"?)` : '';
  const what = source === 'body' ? 'field' : 'query parameter';
  return `Unknown ${what} ${shown}${hint}. Allowed: ${allowed.join(', ')}`;
}
