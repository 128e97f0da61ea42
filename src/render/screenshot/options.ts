/**
 * The screenshot options of GET /render/url (issue 17): parsed strictly from the query, normalised
 * (so `fullPage=1` and `fullPage=true` are one request), and absent altogether when every option
 * is at its default, so a request without options is the very request it was before they existed
 * (same cache key, same ETag, same capture path).
 */
import { AppError } from '../../errors.js';
import { DEFAULT_QUALITY, type ImageFormat, type ImageOutput } from '../format.js';
import {
  HIDE_SELECTORS_MAX,
  quoteSelector,
  SELECTOR_MAX_LENGTH,
  selectorProblem,
  splitSelectorList,
} from './engine/page/selectors.js';
import { type OptionName, type OptionSpec, SHOT_OPTIONS } from './option-table.js';
import type { Viewport } from './viewports.js';

/** The value an option is stored as once parsed, by its type in the table. */
type StoredValue<S> = S extends { type: 'flag' }
  ? true
  : S extends { type: 'selector' }
    ? string
    : S extends { type: 'selectors' }
      ? readonly string[]
      : S extends { type: 'integer' | 'scale' }
        ? number
        : never;

type Spec = (typeof SHOT_OPTIONS)[number];
/** Options stored under their own name (format and quality live together in `output`). */
type SimpleSpec = Exclude<Spec, { type: 'format' | 'quality' }>;

/**
 * What the options of one request ask for; every field at its default is left out: `fullPage`,
 * `delay`, `hideSelectors` (sorted, without duplicates), `scale` (when it differs from the
 * viewport's own), `ttl` … as the table declares them, and `output`, a format other than PNG with
 * its quality when one was given and is not the default.
 */
export type ShotOptions = { [S in SimpleSpec as S['name']]?: StoredValue<S> } & {
  output?: ImageOutput;
};

const BOOLEAN = /^(true|false|1|0)$/;

type Text = (name: OptionName) => string | undefined;

/** How each type of option is read; undefined when it asks for nothing. */
const READ: {
  [T in OptionSpec['type']]: (
    spec: Extract<OptionSpec, { type: T }>,
    text: Text,
    viewport: Viewport,
  ) => unknown;
} = {
  flag: (spec, text) => (flag(text, spec.name as OptionName) ? true : undefined),
  selector: (spec, text) => oneSelector(text, spec.name as OptionName),
  selectors: (spec, text) => {
    const list = selectorList(text(spec.name as OptionName), spec.name);
    return list.length > 0 ? list : undefined;
  },
  integer: (spec, text) => {
    const what = `a whole number of ${spec.unit}`;
    const n = wholeNumber(text, spec.name as OptionName, spec.min, spec.max, what);
    return n === spec.none ? undefined : n;
  },
  scale: (spec, text, viewport) => {
    const n = scaleOf(text(spec.name as OptionName), spec.values);
    return n === viewport.scale ? undefined : n;
  },
  // Read with quality: one `output`, or undefined for PNG.
  format: (spec, text) => outputOf(text(spec.name as OptionName), text('quality'), spec),
  quality: () => undefined,
};

/** Where a parsed value is stored: its own name, or `output` for the format and its quality. */
const storedAs = (spec: OptionSpec) => (spec.type === 'format' ? 'output' : spec.name);

/** Switches are read first (the cheapest checks), then the values in table order. */
const READ_ORDER: readonly OptionSpec[] = [
  ...SHOT_OPTIONS.filter((o) => o.type === 'flag'),
  ...SHOT_OPTIONS.filter((o) => o.type !== 'flag'),
];

/**
 * Reads the options from a query object (values are strings, or arrays for a repeated name).
 * Throws a 400 naming the option and its valid values. Returns undefined when every option is
 * absent or at its default.
 */
export function parseShotOptions(q: Record<string, unknown>, viewport: Viewport): ShotOptions | undefined {
  const text: Text = (name) => {
    const v = q[name];
    if (Array.isArray(v)) throw bad(`${name} must be given once`);
    if (v === undefined || v === '') return undefined;
    return String(v);
  };
  const out: Record<string, unknown> = {};
  for (const spec of READ_ORDER) {
    const read = READ[spec.type] as (s: OptionSpec, t: Text, v: Viewport) => unknown;
    const value = read(spec, text, viewport);
    if (value !== undefined) out[storedAs(spec)] = value;
  }
  return Object.keys(out).length === 0 ? undefined : (out as ShotOptions);
}

/**
 * The options a plan must allow: those this request turns on. An option given at its default
 * (`fullPage=false`, `format=png`, `scale` equal to the viewport's) asks for nothing and needs
 * no permission.
 */
export function optionsInUse(options: ShotOptions | undefined): OptionName[] {
  if (!options) return [];
  const used: OptionName[] = SIMPLE.filter(
    (name) => (options as Record<string, unknown>)[name] !== undefined,
  );
  if (options.output) used.push('format');
  if (options.output?.quality !== undefined) used.push('quality');
  return used;
}

/** Options stored under their own name, in table order. */
const SIMPLE: readonly OptionName[] = SHOT_OPTIONS.filter(
  (o) => o.type !== 'format' && o.type !== 'quality',
).map((o) => o.name);
/** Options that change only how the capture is cached, not the image. */
const CACHING_ONLY = new Set<OptionName>(
  SHOT_OPTIONS.filter((o: OptionSpec) => o.cacheOnly === true).map((o) => o.name),
);

/**
 * The part of the options that changes the image, for the cache key and the ETag: a fixed
 * order, normalised values. Undefined when nothing does (ttl and fresh only change caching).
 */
export function imageIdentity(options: ShotOptions | undefined): Record<string, unknown> | undefined {
  if (!options) return undefined;
  const identity: Record<string, unknown> = {};
  for (const name of SIMPLE) {
    const value = (options as Record<string, unknown>)[name];
    if (value !== undefined && !CACHING_ONLY.has(name)) identity[name] = value;
  }
  if (options.output) identity.output = [options.output.format, options.output.quality ?? null];
  return Object.keys(identity).length === 0 ? undefined : identity;
}

function flag(text: (name: OptionName) => string | undefined, name: OptionName): boolean {
  const v = text(name);
  if (v === undefined) return false;
  if (!BOOLEAN.test(v)) throw bad(`${name} must be true or false (or 1 or 0) (got ${shown(v)})`);
  return v === 'true' || v === '1';
}

function wholeNumber(
  text: (name: OptionName) => string | undefined,
  name: OptionName,
  min: number,
  max: number,
  what: string,
): number | undefined {
  const v = text(name);
  if (v === undefined) return undefined;
  const n = /^\d{1,9}$/.test(v) ? Number(v) : Number.NaN;
  if (!(n >= min && n <= max)) throw bad(`${name} must be ${what} from ${min} to ${max} (got ${shown(v)})`);
  return n;
}

function scaleOf(v: string | undefined, values: readonly number[]): number | undefined {
  if (v === undefined) return undefined;
  const n = values.find((s) => String(s) === v);
  if (n === undefined) throw bad(`scale must be ${oneOf(values)} (got ${shown(v)})`);
  return n;
}

/** `1, 2 or 3`. */
function oneOf(values: readonly number[]): string {
  return values.length < 2 ? values.join('') : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
}

/** The output format and quality; undefined for PNG (the default). */
function outputOf(
  format: string | undefined,
  quality: string | undefined,
  spec: { values: readonly string[] },
): ImageOutput | undefined {
  if (format !== undefined && !spec.values.includes(format)) {
    throw bad(`format must be one of: ${spec.values.join(', ')} (got ${shown(format)})`);
  }
  const q = parseQuality(quality);
  const f = (format ?? 'png') as ImageFormat;
  if (q !== undefined && f === 'png') {
    throw bad('quality applies to jpeg, webp and avif only; leave it out, or add format=jpeg, webp or avif');
  }
  if (f === 'png') return undefined;
  // The format's own default quality is the same request as no quality at all.
  return q === undefined || q === DEFAULT_QUALITY[f] ? { format: f } : { format: f, quality: q };
}

/** quality: a whole number 1–100, shared with the template routes. */
export function parseQuality(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = /^\d{1,3}$/.test(v) ? Number(v) : Number.NaN;
  if (!(n >= 1 && n <= 100)) throw bad(`quality must be a whole number from 1 to 100 (got ${shown(v)})`);
  return n;
}

function oneSelector(text: (name: OptionName) => string | undefined, name: OptionName): string | undefined {
  const v = text(name)?.trim();
  if (v === undefined || v === '') return undefined;
  if (v.length > SELECTOR_MAX_LENGTH) {
    throw bad(`${name} must be at most ${SELECTOR_MAX_LENGTH} characters (got ${v.length})`);
  }
  const problem = selectorProblem(v);
  if (problem) throw bad(`${name} must be a CSS selector: ${quoteSelector(v)} is not one (${problem})`);
  return v;
}

/** The comma-separated list: at most 20 selectors of at most 500 characters, sorted, each once. */
function selectorList(v: string | undefined, name: string): string[] {
  if (v === undefined) return [];
  // A bound before any parsing: 20 selectors of 500 characters and their commas.
  const limit = HIDE_SELECTORS_MAX * (SELECTOR_MAX_LENGTH + 1);
  if (v.length > limit) throw bad(`${name} must be at most ${limit} characters (got ${v.length})`);
  let parts: string[];
  try {
    parts = splitSelectorList(v).filter((p) => p !== '');
  } catch (err) {
    throw bad(`${name} must be comma-separated CSS selectors (${(err as Error).message})`);
  }
  if (parts.length > HIDE_SELECTORS_MAX) {
    throw bad(
      `${name} must list at most ${HIDE_SELECTORS_MAX} CSS selectors, comma-separated (got ${parts.length})`,
    );
  }
  for (const part of parts) {
    if (part.length > SELECTOR_MAX_LENGTH) {
      throw bad(
        `${name}: each selector must be at most ${SELECTOR_MAX_LENGTH} characters (got ${part.length})`,
      );
    }
    const problem = selectorProblem(part);
    if (problem) throw bad(`${name}: ${quoteSelector(part)} is not a CSS selector (${problem})`);
  }
  return [...new Set(parts)].sort();
}

function shown(v: string): string {
  return JSON.stringify(v.slice(0, 40));
}

function bad(message: string): AppError {
  return new AppError('bad_request', message);
}
