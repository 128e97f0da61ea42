/**
 * What a POST /render/url may add to sign in to the page (issue 29 §2): `headers`, `cookies`,
 * `basicAuth` and `userAgent`. Checked here with bounds and exact errors; messages name the
 * field and the header or cookie, never a value (they may be secrets). The capture sends them
 * to the page's own origin only (engine/page/credentials.ts); the cache keys them by an HMAC
 * under the server secret, never in clear.
 */
import { AppError } from '../../errors.js';

export interface ShotCookie {
  name: string;
  value: string;
  path?: string;
  secure?: boolean;
  httpOnly?: boolean;
  sameSite?: 'Strict' | 'Lax' | 'None';
}

/** A request's credentials; absent fields were not given. */
export interface ShotCredentials {
  /** Header name (as given) and value, sorted by lower-cased name. */
  headers?: ReadonlyArray<readonly [string, string]>;
  cookies?: readonly ShotCookie[];
  basicAuth?: { username: string; password: string };
  userAgent?: string;
}

export const CREDENTIAL_FIELDS = ['headers', 'cookies', 'basicAuth', 'userAgent'] as const;
export type CredentialField = (typeof CREDENTIAL_FIELDS)[number];

export const HEADERS_MAX = 20;
export const HEADERS_MAX_BYTES = 8 * 1024;
export const COOKIES_MAX = 50;
export const COOKIES_MAX_BYTES = 16 * 1024;
export const USER_AGENT_MAX = 512;
const BASIC_AUTH_MAX = 256;

/**
 * Headers a caller may not set: the ones that frame the HTTP message or the connection (a page's
 * request would break, or smuggle a second one), the proxy's (they would reach our own egress
 * proxy), and Cookie, which has its own field so it stays with the page's origin.
 */
const FORBIDDEN = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'keep-alive',
  'cookie',
]);

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const CR_LF = /[\r\n]/;
/** Cookie values: RFC 6265 cookie-octets (no controls, whitespace, quote, comma, semicolon, backslash). */
const COOKIE_VALUE = /^[\x21\x23-\x2B\x2D-\x3A\x3C-\x5B\x5D-\x7E]*$/;
const SAME_SITE = ['Strict', 'Lax', 'None'] as const;

/** A control character (below 0x20, or DEL); a tab is allowed in a header value when `tabOk`. */
function hasControl(s: string, tabOk = false): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 0x20 && !(tabOk && c === 0x09)) || c === 0x7f) return true;
  }
  return false;
}

const bad = (message: string) => new AppError('bad_request', message);
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The credentials of a POST body (its `headers`, `cookies`, `basicAuth`, `userAgent`); undefined when none. */
export function parseCredentials(body: Record<string, unknown>): ShotCredentials | undefined {
  const out: {
    headers?: Array<readonly [string, string]>;
    cookies?: ShotCookie[];
    basicAuth?: { username: string; password: string };
    userAgent?: string;
  } = {};
  if (body.headers !== undefined && body.headers !== null) out.headers = parseHeaders(body.headers);
  if (body.cookies !== undefined && body.cookies !== null) out.cookies = parseCookies(body.cookies);
  if (body.basicAuth !== undefined && body.basicAuth !== null) out.basicAuth = parseBasicAuth(body.basicAuth);
  if (body.userAgent !== undefined && body.userAgent !== null) out.userAgent = parseUserAgent(body.userAgent);
  if (out.headers?.length === 0) delete out.headers;
  if (out.cookies?.length === 0) delete out.cookies;
  return Object.keys(out).length === 0 ? undefined : out;
}

function parseHeaders(v: unknown): Array<readonly [string, string]> {
  if (!isObject(v)) throw bad('headers must be an object of header names and string values');
  const entries = Object.entries(v);
  if (entries.length > HEADERS_MAX)
    throw bad(`headers must have at most ${HEADERS_MAX} headers (got ${entries.length})`);
  let bytes = 0;
  const seen = new Set<string>();
  const out: Array<readonly [string, string]> = [];
  for (const [name, value] of entries) {
    if (CR_LF.test(name) || (typeof value === 'string' && CR_LF.test(value))) {
      throw bad('headers: a header name or value must not contain CR or LF');
    }
    const shown = JSON.stringify(name.slice(0, 40));
    if (!TOKEN.test(name)) throw bad(`headers: ${shown} is not a valid header name`);
    const lower = name.toLowerCase();
    if (FORBIDDEN.has(lower) || lower.startsWith('proxy-')) {
      throw bad(
        lower === 'cookie'
          ? 'headers: "Cookie" cannot be set here; use cookies'
          : `headers: ${shown} cannot be set (it belongs to the connection, not the page)`,
      );
    }
    if (seen.has(lower)) throw bad(`headers: ${shown} is given twice`);
    seen.add(lower);
    if (typeof value !== 'string') throw bad(`headers: the value of ${shown} must be a string`);
    // Other control characters (NUL, DEL…) are refused like CR and LF: no HTTP stack takes them.
    if (hasControl(value, true)) throw bad(`headers: the value of ${shown} has a control character`);
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value);
    out.push([name, value]);
  }
  if (bytes > HEADERS_MAX_BYTES)
    throw bad(`headers must be at most ${HEADERS_MAX_BYTES} bytes in all (got ${bytes})`);
  return out.sort((a, b) => (a[0].toLowerCase() < b[0].toLowerCase() ? -1 : 1));
}

function parseCookies(v: unknown): ShotCookie[] {
  if (!Array.isArray(v))
    throw bad('cookies must be a list of {name, value, path?, secure?, httpOnly?, sameSite?}');
  if (v.length > COOKIES_MAX) throw bad(`cookies must have at most ${COOKIES_MAX} cookies (got ${v.length})`);
  const out = v.map((c, i) => parseCookie(c, `cookies[${i}]`));
  const bytes = out.reduce((n, c) => n + Buffer.byteLength(c.name) + Buffer.byteLength(c.value), 0);
  if (bytes > COOKIES_MAX_BYTES)
    throw bad(`cookies must be at most ${COOKIES_MAX_BYTES} bytes in all (got ${bytes})`);
  return out;
}

const COOKIE_FIELDS = ['name', 'value', 'path', 'secure', 'httpOnly', 'sameSite'];

/** One cookie of the list; `at` names it in messages (never its value). */
function parseCookie(c: unknown, at: string): ShotCookie {
  if (!isObject(c)) throw bad(`${at} must be an object {name, value, path?, secure?, httpOnly?, sameSite?}`);
  const unknown = Object.keys(c).find((k) => !COOKIE_FIELDS.includes(k));
  if (unknown) {
    throw bad(
      `${at} has an unknown field ${JSON.stringify(unknown.slice(0, 40))} (allowed: ${COOKIE_FIELDS.join(', ')})`,
    );
  }
  const { name, value, path, secure, httpOnly, sameSite } = c;
  if (typeof name !== 'string' || !TOKEN.test(name)) {
    throw bad(`${at}.name must be a cookie name (letters, digits and !#$%&'*+.^_\`|~-)`);
  }
  if (typeof value !== 'string') throw bad(`${at}.value must be a string`);
  if (CR_LF.test(value)) throw bad(`${at}.value must not contain CR or LF`);
  if (!COOKIE_VALUE.test(value)) {
    throw bad(
      `${at}.value must not contain spaces, quotes, commas, semicolons, backslashes or control characters`,
    );
  }
  const goodPath =
    path === undefined ||
    (typeof path === 'string' && path.length <= 1024 && /^\/[\x21-\x3A\x3C-\x7E]*$/.test(path));
  if (!goodPath) throw bad(`${at}.path must start with / (at most 1024 characters, no spaces or semicolons)`);
  for (const [field, flag] of [
    ['secure', secure],
    ['httpOnly', httpOnly],
  ] as const) {
    if (flag !== undefined && typeof flag !== 'boolean') throw bad(`${at}.${field} must be true or false`);
  }
  if (sameSite !== undefined && !SAME_SITE.includes(sameSite as (typeof SAME_SITE)[number])) {
    throw bad(`${at}.sameSite must be one of: ${SAME_SITE.join(', ')}`);
  }
  return {
    name,
    value,
    ...(path !== undefined ? { path: path as string } : {}),
    ...(secure !== undefined ? { secure: secure as boolean } : {}),
    ...(httpOnly !== undefined ? { httpOnly: httpOnly as boolean } : {}),
    ...(sameSite !== undefined ? { sameSite: sameSite as ShotCookie['sameSite'] } : {}),
  };
}

function parseBasicAuth(v: unknown): { username: string; password: string } {
  if (
    !isObject(v) ||
    typeof v.username !== 'string' ||
    typeof v.password !== 'string' ||
    Object.keys(v).length !== 2
  ) {
    throw bad('basicAuth must be {"username": "…", "password": "…"}');
  }
  if (v.username.includes(':')) throw bad('basicAuth.username must not contain ":"');
  if (hasControl(v.username + v.password))
    throw bad('basicAuth must not contain control characters (CR, LF…)');
  if (v.username.length > BASIC_AUTH_MAX || v.password.length > BASIC_AUTH_MAX) {
    throw bad(`basicAuth.username and basicAuth.password must be at most ${BASIC_AUTH_MAX} characters each`);
  }
  return { username: v.username, password: v.password };
}

function parseUserAgent(v: unknown): string {
  if (typeof v !== 'string') throw bad('userAgent must be a string');
  if (v.length > USER_AGENT_MAX)
    throw bad(`userAgent must be at most ${USER_AGENT_MAX} characters (got ${v.length})`);
  if (hasControl(v)) throw bad('userAgent must not contain CR, LF or other control characters');
  return v;
}

/** The credentials as one canonical text, for their HMAC (never stored or logged). */
export function canonicalCredentials(c: ShotCredentials): string {
  return JSON.stringify([c.headers ?? null, c.cookies ?? null, c.basicAuth ?? null, c.userAgent ?? null]);
}

/** What a log line may say about credentials: which fields, and header and cookie names only. */
export function describeCredentials(c: ShotCredentials | undefined): Record<string, unknown> | undefined {
  if (!c) return undefined;
  return {
    ...(c.headers ? { headers: c.headers.map(([n]) => n) } : {}),
    ...(c.cookies ? { cookies: c.cookies.map((k) => k.name) } : {}),
    ...(c.basicAuth ? { basicAuth: true } : {}),
    ...(c.userAgent ? { userAgent: true } : {}),
  };
}
