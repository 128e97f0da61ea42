/**
 * The page an `/og/<site>/<path>?<query>` request names: `<origin>/<path>?<query>` on the site's
 * first origin, and never anything else. The path is appended to the origin as text and the
 * result parsed; whatever the parser makes of it (`//host`, `..`, `@host`), its origin must still
 * be the site's, or the request is a 400. Backslashes (which WHATWG URLs read as slashes, and
 * some servers as something else) and control characters are refused outright, encoded or not.
 */
import { AppError } from '../../errors.js';

const REFUSED = /\\|%5c|%00/i;
export const MAX_PATH_LENGTH = 2048;

/** The page URL for `rest` (what follows `/og/<site id>` in the request target, query included). */
export function pageUrl(origin: string, rest: string): string {
  if (rest.length > MAX_PATH_LENGTH) {
    throw pathError(`The page path must be at most ${MAX_PATH_LENGTH} characters`);
  }
  if (REFUSED.test(rest) || hasControl(rest))
    throw pathError('The page path must not contain backslashes or control characters');
  const tail = rest === '' || rest.startsWith('?') ? `/${rest}` : rest;
  if (!tail.startsWith('/')) throw pathError('The page path must start with /');
  let url: URL;
  try {
    url = new URL(`${origin}${tail}`);
  } catch {
    throw pathError('The page path is not a valid URL path');
  }
  if (url.origin !== origin || url.username !== '' || url.password !== '') {
    throw pathError("The page path must stay on the site's origin");
  }
  url.hash = '';
  return url.href;
}

/** The path and query of a page URL on the site (what purge and the cache name a page by). */
export function pagePath(href: string): string {
  const url = new URL(href);
  return `${url.pathname}${url.search}`;
}

function pathError(message: string): AppError {
  return new AppError('bad_request', message);
}

function hasControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}
