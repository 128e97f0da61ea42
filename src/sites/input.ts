/**
 * POST /sites and PATCH /sites/:id bodies, validated by hand so every refusal names the field
 * and the fix. A create gets the defaults of the issue (title ← og:title, else <title>; subtitle
 * ← og:description, else the meta description; brand ← og:site_name, else the host; imageUrl ←
 * og:image); a patch changes only what it names.
 */
import { AppError } from '../errors.js';
import type { Fallback, FieldMapping, RenderMode } from './store.js';

/** What a body sets; a patch leaves absent keys as they are. */
export interface SiteInput {
  name?: string;
  origins?: string[];
  template?: string;
  theme?: string | null;
  fields?: Partial<FieldMapping>;
  fallback?: Fallback;
  refreshSeconds?: number;
  render?: RenderMode;
}

export const DEFAULT_FIELDS: FieldMapping = {
  title: 'og:title|title',
  subtitle: 'og:description|description',
  brand: 'og:site_name|host',
  imageUrl: 'og:image',
};

export const DEFAULT_REFRESH_SECONDS = 86_400;
const MIN_REFRESH = 60;
const MAX_REFRESH = 30 * 86_400;
export const MAX_ORIGINS = 10;
const KEYS = ['name', 'origins', 'template', 'theme', 'fields', 'fallback', 'refreshSeconds', 'render'];
const FIELD_KEYS = ['title', 'subtitle', 'brand', 'imageUrl'] as const;
/** A source: `og:title`, `title`, `description`, `host`, `twitter:title` or any meta name. */
const SOURCE = /^[a-z0-9][a-z0-9:_.-]{0,63}$/;
const MAX_SOURCES = 5;

/** Validates a POST /sites or PATCH body (`partial` for a patch: nothing is required). */
export function parseSiteInput(body: unknown, partial: boolean): SiteInput {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw bad('Request body must be a JSON object: {"origins": ["https://…"], "template": "blog", …}');
  }
  const r = body as Record<string, unknown>;
  const stray = Object.keys(r).find((k) => !KEYS.includes(k));
  if (stray !== undefined) {
    throw bad(`Unknown field ${JSON.stringify(stray.slice(0, 40))}. Allowed: ${KEYS.join(', ')}`);
  }
  const out: SiteInput = {};
  if (r.origins !== undefined || !partial) out.origins = readOrigins(r.origins);
  if (r.template !== undefined || !partial) {
    if (typeof r.template !== 'string' || r.template.trim() === '') {
      throw bad('template is required: the name of a template (blog, product, saas, or one of yours)');
    }
    out.template = r.template.trim();
  }
  if (r.name !== undefined) out.name = readText(r.name, 'name', 100);
  if (r.theme !== undefined) out.theme = readTheme(r.theme);
  if (r.fields !== undefined) out.fields = readFields(r.fields);
  if (r.fallback !== undefined) out.fallback = readFallback(r.fallback);
  if (r.refreshSeconds !== undefined) out.refreshSeconds = readRefresh(r.refreshSeconds);
  if (r.render !== undefined) {
    if (r.render !== 'fetch' && r.render !== 'browser') {
      throw bad('render must be "fetch" (read the page head) or "browser" (run its scripts first)');
    }
    out.render = r.render;
  }
  return out;
}

/** Origins: absolute http(s) URLs without credentials, path, query or fragment, normalised. */
function readOrigins(v: unknown): string[] {
  if (!Array.isArray(v) || v.length === 0 || v.length > MAX_ORIGINS) {
    throw bad(
      `origins is required: a list of 1 to ${MAX_ORIGINS} origins such as "https://blog.example.com"`,
    );
  }
  const seen = new Set<string>();
  for (const [i, raw] of v.entries()) {
    const origin = readOrigin(raw, i);
    if (seen.has(origin)) throw bad(`origins[${i}] repeats ${origin}`);
    seen.add(origin);
  }
  return [...seen];
}

function readOrigin(raw: unknown, i: number): string {
  const name = `origins[${i}]`;
  if (typeof raw !== 'string' || raw.length > 300)
    throw bad(`${name} must be an origin such as "https://blog.example.com"`);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw bad(`${name} must be an absolute URL such as "https://blog.example.com"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bad(`${name} must use http or https`);
  if (url.username !== '' || url.password !== '') throw bad(`${name} must not carry a user name or password`);
  if ((url.pathname !== '/' && url.pathname !== '') || url.search !== '' || url.hash !== '') {
    throw bad(`${name} must be an origin only (scheme, host and port), without a path, query or fragment`);
  }
  return url.origin;
}

function readTheme(v: unknown): string | null {
  if (v === null || v === 'account') return null;
  if (v === 'none') return 'none';
  throw bad(
    'theme must be "account" (the account\'s brand theme, the default) or "none" (the template\'s own look)',
  );
}

function readFields(v: unknown): Partial<FieldMapping> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw bad('fields must be an object such as {"title": "og:title|title"}');
  }
  const out: Partial<FieldMapping> = {};
  for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
    if (!(FIELD_KEYS as readonly string[]).includes(key)) {
      throw bad(`Unknown field fields.${key.slice(0, 40)}. Allowed: ${FIELD_KEYS.join(', ')}`);
    }
    const k = key as (typeof FIELD_KEYS)[number];
    if (value === null && k !== 'title') {
      out[k] = null;
      continue;
    }
    out[k] = readSources(value, `fields.${k}`);
  }
  return out;
}

/** `og:title|title|headline`: up to five sources, each a tag name. */
function readSources(v: unknown, name: string): string {
  const hint = `${name} must be sources separated by | such as "og:title|title" (og:…, twitter:…, title, description, host, or a meta name)`;
  if (typeof v !== 'string') throw bad(hint);
  const parts = v
    .split('|')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (parts.length === 0 || parts.length > MAX_SOURCES || !parts.every((p) => SOURCE.test(p)))
    throw bad(hint);
  return parts.join('|');
}

function readFallback(v: unknown): Fallback {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw bad('fallback must be an object such as {"title": "My blog", "subtitle": "…"}');
  }
  const r = v as Record<string, unknown>;
  const stray = Object.keys(r).find((k) => k !== 'title' && k !== 'subtitle');
  if (stray !== undefined)
    throw bad(`Unknown field fallback.${stray.slice(0, 40)}. Allowed: title, subtitle`);
  const title = readText(r.title, 'fallback.title', 200);
  if (r.subtitle === undefined || r.subtitle === null || r.subtitle === '') return { title };
  return { title, subtitle: readText(r.subtitle, 'fallback.subtitle', 300) };
}

function readRefresh(v: unknown): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < MIN_REFRESH || v > MAX_REFRESH) {
    throw bad(`refreshSeconds must be an integer from ${MIN_REFRESH} to ${MAX_REFRESH} (30 days)`);
  }
  return v;
}

function readText(v: unknown, name: string, max: number): string {
  const t = typeof v === 'string' ? v.replace(/\s+/g, ' ').trim() : '';
  if (t === '' || [...t].length > max) throw bad(`${name} must be text of 1 to ${max} characters`);
  return t;
}

function bad(message: string): AppError {
  return new AppError('bad_request', message);
}
