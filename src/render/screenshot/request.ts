import { AppError } from '../../errors.js';
import { editDistance } from '../../lib/edit-distance.js';
import type { ShotCredentials } from './credentials.js';
import { OPTION_NAMES } from './option-names.js';
import { parseShotOptions, type ShotOptions } from './options.js';
import { DEFAULT_VIEWPORT, type Viewport } from './viewports.js';

/** When a page counts as loaded, in Playwright's names. */
export const WAIT_UNTIL = ['load', 'domcontentloaded', 'networkidle'] as const;
export type WaitUntil = (typeof WAIT_UNTIL)[number];

/** A validated GET /render/url request. */
export interface ScreenshotRequest {
  /** The URL to load: normalised, fragment dropped (see `normaliseScreenshotUrl`). */
  url: string;
  viewport: Viewport;
  waitUntil: WaitUntil;
  /** The screenshot options this request turns on; absent when none is (see options.ts). */
  options?: ShotOptions;
  /** What signs the capture in (POST only): sent to the page's origin, never cached in clear. */
  credentials?: ShotCredentials;
  /**
   * Origins the page's main frame may load documents from; a redirect or move elsewhere is
   * stopped before it is sent, and the capture refused (422). Set by Cardshot's own callers (a
   * site's page read in the browser, which captures uncached), never from a client's request.
   */
  stayOn?: readonly string[];
}

export const URL_MAX_LENGTH = 2048;
/** `load` matches a browser's own idea of "done"; networkidle costs at least 500 ms more on every page. */
export const DEFAULT_WAIT_UNTIL: WaitUntil = 'load';
const PARAMS = ['url', 'viewport', 'waitUntil', ...OPTION_NAMES] as const;

/**
 * Validates the query string. Every refusal names the parameter and the valid values; a
 * parameter given twice or one we do not know is refused rather than guessed at.
 * `extraAllowed` lists parameters another layer consumes (an API key), ignored here.
 */
export function parseScreenshotRequest(
  query: unknown,
  viewports: ReadonlyMap<string, Viewport>,
  extraAllowed: ReadonlySet<string> = new Set(),
): ScreenshotRequest {
  const q = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  for (const key of Object.keys(q)) {
    if (!(PARAMS as readonly string[]).includes(key) && !extraAllowed.has(key)) {
      const near =
        PARAMS.find((p) => p.toLowerCase() === key.toLowerCase()) ??
        (key.length <= 40 ? PARAMS.find((p) => editDistance(p, key) <= 2) : undefined);
      throw bad(
        `Unknown query parameter ${JSON.stringify(key.slice(0, 40))}${near ? ` (did you mean "${near}"?)` : ''}. Allowed: ${PARAMS.join(', ')}`,
      );
    }
  }
  const one = (name: 'url' | 'viewport' | 'waitUntil'): string | undefined => {
    const v = q[name];
    if (Array.isArray(v)) throw bad(`${name} must be given once`);
    if (v === undefined || v === '') return undefined;
    return String(v);
  };

  const rawUrl = one('url');
  if (rawUrl === undefined) throw bad('url is required (an absolute http or https URL)');
  if (rawUrl.length > URL_MAX_LENGTH) {
    throw bad(`url must be at most ${URL_MAX_LENGTH} characters (got ${rawUrl.length})`);
  }
  const url = normaliseScreenshotUrl(rawUrl);

  const names = [...viewports.keys()];
  const viewportName = one('viewport') ?? DEFAULT_VIEWPORT;
  const viewport = viewports.get(viewportName);
  if (!viewport) {
    throw bad(
      `viewport must be one of: ${names.join(', ')} (got ${JSON.stringify(viewportName.slice(0, 40))})`,
    );
  }

  const waitUntil = one('waitUntil') ?? DEFAULT_WAIT_UNTIL;
  if (!(WAIT_UNTIL as readonly string[]).includes(waitUntil)) {
    throw bad(
      `waitUntil must be one of: ${WAIT_UNTIL.join(', ')} (got ${JSON.stringify(waitUntil.slice(0, 40))})`,
    );
  }
  const options = parseShotOptions(q, viewport);
  return { url, viewport, waitUntil: waitUntil as WaitUntil, ...(options ? { options } : {}) };
}

/**
 * The URL as the cache and the browser see it: scheme and host lower-cased, default port and
 * fragment dropped, path and query exactly as given (WHATWG parsing does the rest: IDN to
 * punycode, `127.1` to `127.0.0.1`, percent-encoding). Throws a 400 for anything that is not an
 * absolute http(s) URL, or that carries credentials.
 */
export function normaliseScreenshotUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw bad('url must be an absolute http or https URL (for example https://example.com/)');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw bad('url must be an absolute http or https URL (for example https://example.com/)');
  }
  if (u.username !== '' || u.password !== '') throw bad('url must not contain a user name or password');
  // The fragment never reaches the server: it must not split the cache.
  u.hash = '';
  return u.href;
}

function bad(message: string): AppError {
  return new AppError('bad_request', message);
}
