/**
 * The screenshot options of GET /render/url (issue 17): parsed strictly from the query, normalised
 * (so `fullPage=1` and `fullPage=true` are one request), and absent altogether when every option
 * is at its default, so a request without options is the very request it was before they existed
 * (same cache key, same ETag, same capture path).
 */
import { AppError } from '../../errors.js';
import { DEFAULT_QUALITY, IMAGE_FORMATS, type ImageFormat, type ImageOutput } from '../format.js';
import {
  HIDE_SELECTORS_MAX,
  quoteSelector,
  SELECTOR_MAX_LENGTH,
  selectorProblem,
  splitSelectorList,
} from './engine/page/selectors.js';
import { OPTION_NAMES, type OptionName } from './option-names.js';
import type { Viewport } from './viewports.js';

/** What the options of one request ask for; every field at its default is left out. */
export interface ShotOptions {
  /** The whole page, down to CARDSHOT_SCREENSHOT_MAX_FULL_PAGE_HEIGHT output pixels. */
  fullPage?: true;
  /** Capture only the first element matching this CSS selector. */
  selector?: string;
  /** Wait until an element matching this CSS selector is visible. */
  waitForSelector?: string;
  /** Milliseconds to wait once the page is ready. */
  delay?: number;
  darkMode?: true;
  /** CSS selectors hidden (display: none) before the capture; sorted, without duplicates. */
  hideSelectors?: readonly string[];
  blockAds?: true;
  blockCookieBanners?: true;
  /** Device scale factor, when it differs from the viewport's own. */
  scale?: number;
  /** A format other than PNG, with its quality when one was given and is not the default. */
  output?: ImageOutput;
  /** Seconds this capture may be served from the cache (not part of the cache key). */
  ttl?: number;
  /** Capture again even when cached (not part of the cache key: it writes the same entry). */
  fresh?: true;
}

export const DELAY_MAX_MS = 10_000;
export const SCALES = [1, 2, 3] as const;
export const TTL_MIN_SECONDS = 3600;
export const TTL_MAX_SECONDS = 2_592_000;

const BOOLEAN = /^(true|false|1|0)$/;

/**
 * Reads the options from a query object (values are strings, or arrays for a repeated name).
 * Throws a 400 naming the option and its valid values. Returns undefined when every option is
 * absent or at its default.
 */
export function parseShotOptions(q: Record<string, unknown>, viewport: Viewport): ShotOptions | undefined {
  const text = (name: OptionName): string | undefined => {
    const v = q[name];
    if (Array.isArray(v)) throw bad(`${name} must be given once`);
    if (v === undefined || v === '') return undefined;
    return String(v);
  };
  const out: ShotOptions = {};
  if (flag(text, 'fullPage')) out.fullPage = true;
  if (flag(text, 'darkMode')) out.darkMode = true;
  if (flag(text, 'blockAds')) out.blockAds = true;
  if (flag(text, 'blockCookieBanners')) out.blockCookieBanners = true;
  if (flag(text, 'fresh')) out.fresh = true;
  const selector = oneSelector(text, 'selector');
  if (selector !== undefined) out.selector = selector;
  const waitFor = oneSelector(text, 'waitForSelector');
  if (waitFor !== undefined) out.waitForSelector = waitFor;
  const hide = hideSelectors(text('hideSelectors'));
  if (hide.length > 0) out.hideSelectors = hide;
  const delay = wholeNumber(text, 'delay', 0, DELAY_MAX_MS, 'a whole number of milliseconds');
  if (delay) out.delay = delay;
  const scale = scaleOf(text('scale'));
  if (scale !== undefined && scale !== viewport.scale) out.scale = scale;
  const output = outputOf(text('format'), text('quality'));
  if (output) out.output = output;
  const ttl = wholeNumber(text, 'ttl', TTL_MIN_SECONDS, TTL_MAX_SECONDS, 'a whole number of seconds');
  if (ttl !== undefined) out.ttl = ttl;
  return Object.keys(out).length === 0 ? undefined : out;
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

/** Options stored under their own name (format and quality live together in `output`). */
const SIMPLE = OPTION_NAMES.filter((n) => n !== 'format' && n !== 'quality');
/** Options that change only how the capture is cached, not the image. */
const CACHING_ONLY = new Set<OptionName>(['ttl', 'fresh']);

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

function scaleOf(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = (SCALES as readonly number[]).find((s) => String(s) === v);
  if (n === undefined) throw bad(`scale must be 1, 2 or 3 (got ${shown(v)})`);
  return n;
}

/** The output format and quality; undefined for PNG (the default). */
function outputOf(format: string | undefined, quality: string | undefined): ImageOutput | undefined {
  if (format !== undefined && !(IMAGE_FORMATS as readonly string[]).includes(format)) {
    throw bad(`format must be one of: ${IMAGE_FORMATS.join(', ')} (got ${shown(format)})`);
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
function hideSelectors(v: string | undefined): string[] {
  if (v === undefined) return [];
  // A bound before any parsing: 20 selectors of 500 characters and their commas.
  const limit = HIDE_SELECTORS_MAX * (SELECTOR_MAX_LENGTH + 1);
  if (v.length > limit) throw bad(`hideSelectors must be at most ${limit} characters (got ${v.length})`);
  let parts: string[];
  try {
    parts = splitSelectorList(v).filter((p) => p !== '');
  } catch (err) {
    throw bad(`hideSelectors must be comma-separated CSS selectors (${(err as Error).message})`);
  }
  if (parts.length > HIDE_SELECTORS_MAX) {
    throw bad(
      `hideSelectors must list at most ${HIDE_SELECTORS_MAX} CSS selectors, comma-separated (got ${parts.length})`,
    );
  }
  for (const part of parts) {
    if (part.length > SELECTOR_MAX_LENGTH) {
      throw bad(
        `hideSelectors: each selector must be at most ${SELECTOR_MAX_LENGTH} characters (got ${part.length})`,
      );
    }
    const problem = selectorProblem(part);
    if (problem) throw bad(`hideSelectors: ${quoteSelector(part)} is not a CSS selector (${problem})`);
  }
  return [...new Set(parts)].sort();
}

function shown(v: string): string {
  return JSON.stringify(v.slice(0, 40));
}

function bad(message: string): AppError {
  return new AppError('bad_request', message);
}
