/**
 * Object keys: a target's prefix and path template, with placeholders filled from what was
 * rendered. Placeholder values are reduced to characters that are safe in any S3 key and
 * carry no `/`, so a page's host or a template's name cannot climb out of the prefix.
 */
import { AppError } from '../errors.js';

/** Every placeholder, with what it stands for (the API reference lists these). */
export const PLACEHOLDERS = {
  job: "the job's id (jobs only)",
  index: "the item's index in its job, from 0 (jobs only)",
  id: "the request id of a synchronous render; <job>-<index> for a job's item",
  name: "the card's template name, or the screenshot page's host name",
  ext: 'the file extension of the format: png, jpg, webp, avif or pdf',
  date: 'the UTC date of the upload, YYYY-MM-DD',
  etag: "the render's ETag (a content hash), without quotes",
} as const;

export type Placeholder = keyof typeof PLACEHOLDERS;

/** The default template of a job item's key. */
export const DEFAULT_JOB_TEMPLATE = '{job}/{index}-{name}.{ext}';
/** The default template of a synchronous render's key. */
export const DEFAULT_SYNC_TEMPLATE = '{date}/{id}.{ext}';
/** Placeholders a synchronous render has no value for. */
const JOB_ONLY: readonly Placeholder[] = ['job', 'index'];

/** S3's own limit on a key, in UTF-8 bytes. */
export const MAX_KEY_BYTES = 1024;
const MAX_TEMPLATE = 512;
// S3's "safe characters" (its object key naming guide), plus the placeholders' braces.
const SAFE_LITERAL = /^[A-Za-z0-9!\-_.*'()/]*$/;

/** Checks a prefix (may be empty; `/` is added when it lacks one); 400 naming the field. */
export function parsePrefix(value: unknown): string {
  if (value === undefined || value === '') return '';
  if (typeof value !== 'string') throw bad('prefix must be a string such as "cards/"');
  if (value.length > MAX_TEMPLATE) throw bad(`prefix must be at most ${MAX_TEMPLATE} characters`);
  checkLiteral(value, 'prefix');
  return value.endsWith('/') ? value : `${value}/`;
}

/** Checks a path template: known placeholders, safe literals, no empty or dot segments. */
export function parseTemplate(value: unknown, field: string, kind: 'job' | 'sync'): string {
  const fallback = kind === 'job' ? DEFAULT_JOB_TEMPLATE : DEFAULT_SYNC_TEMPLATE;
  if (value === undefined || value === '') return fallback;
  if (typeof value !== 'string') throw bad(`${field} must be a string such as "${fallback}"`);
  if (value.length > MAX_TEMPLATE) throw bad(`${field} must be at most ${MAX_TEMPLATE} characters`);
  const literal = value.replace(/\{([a-z]+)\}/g, (_m, name: string) => {
    if (!(name in PLACEHOLDERS)) {
      throw bad(
        `${field}: {${name.slice(0, 20)}} is not a placeholder; use ${Object.keys(PLACEHOLDERS)
          .map((p) => `{${p}}`)
          .join(', ')}`,
      );
    }
    if (kind === 'sync' && JOB_ONLY.includes(name as Placeholder)) {
      throw bad(`${field}: {${name}} has no value for a synchronous render (it is a job's); use {id}`);
    }
    return 'x';
  });
  checkLiteral(literal, field);
  if (literal.startsWith('/')) throw bad(`${field} must not start with "/" (the prefix comes first)`);
  if (literal.endsWith('/')) throw bad(`${field} must end with a file name, not "/"`);
  return value;
}

function checkLiteral(value: string, field: string): void {
  if (!SAFE_LITERAL.test(value)) {
    throw bad(
      `${field} may hold only letters, digits, / and the characters ! - _ . * ' ( ) besides placeholders`,
    );
  }
  const segments = value.split('/');
  if (value.startsWith('/')) throw bad(`${field} must not start with "/"`);
  if (segments.slice(0, -1).some((s) => s === '') || segments.some((s) => s === '.' || s === '..')) {
    throw bad(`${field} must not hold empty, "." or ".." path segments`);
  }
}

/** What a key is made from. */
export type KeyValues = Partial<Record<Placeholder, string | number>>;

/** The object key: the prefix, then the template with each placeholder's value made safe. */
export function objectKey(prefix: string, template: string, values: KeyValues): string {
  const body = template.replace(/\{([a-z]+)\}/g, (_m, name: string) =>
    safeValue(values[name as Placeholder]),
  );
  const key = `${prefix}${body}`;
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) {
    throw bad(
      `the object key would be longer than ${MAX_KEY_BYTES} bytes; shorten the prefix or the path template`,
    );
  }
  return key;
}

/** A value already fit to be one key segment, kept as it is: ids, dates, ETags, template names. */
const VERBATIM = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}$/;

/**
 * A value as one key segment: safe characters only, never empty, never `.` or `..`. One that is
 * already safe is kept exactly: a job's id may end in `-` (base64url), and tidying it away once
 * put a job's objects under a name that was not its id, one a `job_…` id without the dash would
 * share. Anything else (a host, a name with spaces or slashes) is reduced and tidied.
 */
function safeValue(value: string | number | undefined): string {
  const raw = String(value ?? '');
  if (VERBATIM.test(raw)) return raw;
  const text = raw
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^[.-]+|-+$/g, '')
    .slice(0, 200);
  return text === '' ? '_' : text;
}

/** `{name}` of a screenshot: the page's host (no port, no dots at the ends). */
export function hostName(url: string): string {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return 'page';
  }
}

function bad(message: string): AppError {
  return new AppError('bad_request', message);
}
