import type { Plan } from '../auth/plans.js';
import type { ServerSecrets } from '../auth/secret.js';
import { carriesFresh, encodeRfc3986 } from '../auth/signing.js';
import { FILE_EXTENSION, type ImageFormat, screenshotParams } from '../client/options.js';
import { allowScreenshot } from '../render/plan-gate.js';
import { type OptionName, type OptionSpec, SHOT_OPTIONS } from '../render/screenshot/option-table.js';
import { DEFAULT_WAIT_UNTIL, parseScreenshotRequest } from '../render/screenshot/request.js';
import { DEFAULT_VIEWPORT, type Viewport } from '../render/screenshot/viewports.js';
import type { ApiKeyRecord } from '../storage/store.js';
import { playgroundKey, shellQuote, signPlaygroundUrls } from './playground.js';
import { dateTime, shortDate } from './views/format.js';

/** The playground's fieldsets, in the order the page shows them. */
export const SHOT_GROUPS = ['capture', 'page', 'image', 'pdf'] as const;

/** The screenshot options as form fields, in the order the page shows them: by fieldset, then table order. */
export const SHOT_OPTION_FIELDS: readonly OptionName[] = SHOT_GROUPS.flatMap((group) =>
  SHOT_OPTIONS.filter((o: OptionSpec) => o.form.group === group).map((o) => o.name),
);
export type ShotOptionField = OptionName;

/** Options that are checkboxes: on, or left out (a switch on by default is a select instead). */
export const SHOT_SWITCHES: ReadonlySet<ShotOptionField> = new Set(
  SHOT_OPTIONS.filter((o: OptionSpec) => o.type === 'flag' && o.form.choices === undefined).map(
    (o) => o.name,
  ),
);

const FIELDS = ['url', 'viewport', 'waitUntil', ...SHOT_OPTION_FIELDS, 'key'] as const;

/** What the screenshot playground's form sends (all strings; empty means "leave out"). */
export type ShotPlaygroundInput = Record<(typeof FIELDS)[number], string>;

/** What the page shows for a valid input. */
export interface ShotPlaygroundResult {
  /** Same-origin, short-lived signed URL: the preview is the real capture through the API. */
  previewUrl: string;
  /** Absolute, long-lived signed URL: for an <img> or og:image tag, shows no key. */
  signedUrl: string;
  signedHint: string;
  curl: string;
  keyId: string;
  format: ImageFormat;
}

/**
 * The credentials the form holds, by name only (the signing call never receives a value): the
 * curl command then shows a POST with them as `…` to fill in, since a URL cannot carry them.
 */
export interface CredentialNames {
  headers: string[];
  cookies: string[];
  basicAuth: boolean;
  userAgent: boolean;
}

const NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;

/** `credentialNames` of the signing call's body, or undefined when it names none. */
export function readCredentialNames(source: unknown): CredentialNames | undefined {
  const c = (source as Record<string, unknown> | null | undefined)?.credentialNames;
  if (typeof c !== 'object' || c === null) return undefined;
  const o = c as Record<string, unknown>;
  const names = (v: unknown, max: number) =>
    Array.isArray(v) ? v.filter((n): n is string => typeof n === 'string' && NAME.test(n)).slice(0, max) : [];
  const found: CredentialNames = {
    headers: names(o.headers, 20),
    cookies: names(o.cookies, 50),
    basicAuth: o.basicAuth === true,
    userAgent: o.userAgent === true,
  };
  const any = found.headers.length + found.cookies.length > 0 || found.basicAuth || found.userAgent;
  return any ? found : undefined;
}

/** A form post or query string as the playground's input; anything absent or repeated is ''. */
export function readShotInput(source: unknown): ShotPlaygroundInput {
  const s = (source ?? {}) as Record<string, unknown>;
  const input = {} as ShotPlaygroundInput;
  for (const name of FIELDS) {
    const v = s[name];
    input[name] = typeof v === 'string' ? v.trim() : '';
  }
  return input;
}

const ON = new Set(['true', '1', 'on']);
const OFF = new Set(['', 'false', '0']);

/**
 * The request's query parameters, in the client's order with defaults left out, so the preview,
 * the signed URL and the curl command are the URL the client library would send.
 */
export function shotQueryParams(input: ShotPlaygroundInput): Array<[string, string]> {
  const record: Record<string, unknown> = { url: input.url };
  if (input.viewport !== DEFAULT_VIEWPORT) record.viewport = input.viewport;
  if (input.waitUntil !== DEFAULT_WAIT_UNTIL) record.waitUntil = input.waitUntil;
  for (const name of SHOT_OPTION_FIELDS) {
    const v = input[name];
    // A checkbox is on or left out; any other value goes to the API's validator, which names it.
    if (SHOT_SWITCHES.has(name)) record[name] = ON.has(v) ? true : OFF.has(v) ? undefined : v;
    else record[name] = v;
  }
  return screenshotParams(record);
}

/** The options a plan allows: '*', or a list of option names (none without screenshots). */
export function planShotOptions(plan: Plan | undefined): readonly string[] | '*' {
  if (!plan || plan.screenshots === false) return [];
  return plan.screenshots.options;
}

/**
 * Validates the request exactly as GET /render/url does (400 with the API's message; 403 when
 * the plan takes no screenshots, or not with this viewport or these options) and signs it with
 * one of the account's keys.
 */
export function buildShotPlayground(opts: {
  input: ShotPlaygroundInput;
  plan: Plan;
  keys: readonly ApiKeyRecord[];
  secrets: ServerSecrets;
  viewports: ReadonlyMap<string, Viewport>;
  baseUrl: string;
  now: number;
  /** Credentials the form holds (names only): the request is a POST, not a URL. */
  credentials?: CredentialNames | undefined;
}): ShotPlaygroundResult {
  const params = shotQueryParams(opts.input);
  const parsed = parseScreenshotRequest(Object.fromEntries(params), opts.viewports);
  // The render command's own plan check (viewport and options), so the page never signs a URL
  // the API would refuse.
  allowScreenshot(opts.plan, parsed);
  const key = playgroundKey(opts.keys, opts.input.key, opts.now, 'previews and screenshot URLs');
  const pathOf = (ps: Array<[string, string]>) =>
    `/render/url?${ps.map(([n, v]) => `${n}=${encodeRfc3986(v)}`).join('&')}`;
  const path = pathOf(params);
  // The preview (minutes) may capture again; a URL for publishing may not: anyone who sees it
  // could make the account pay for a capture on every request (issue 26 §3).
  const fresh = carriesFresh(params);
  const signed = signPlaygroundUrls(
    path,
    key,
    opts,
    fresh ? pathOf(params.filter(([n]) => n !== 'fresh')) : path,
  );
  const format = (params.find(([n]) => n === 'format')?.[1] ?? 'png') as ImageFormat;
  const out = `page.${FILE_EXTENSION[format] ?? 'png'}`;
  if (opts.credentials) {
    return {
      previewUrl: signed.previewUrl,
      signedUrl: '',
      signedHint:
        'No signed URL: a URL cannot carry headers, cookies or a password. Capture this page with POST and a key from your server (curl below); the playground sends them with each capture and keeps none of them.',
      curl: postCurl(opts.baseUrl, params, opts.credentials, out),
      keyId: key.id,
      format,
    };
  }
  const signedHint = `${
    signed.cutByKey
      ? `Signed URL, valid only until ${dateTime(signed.until)}, when key ${key.prefix}…${key.last4} expires. For a URL you publish, sign with a key that does not expire.`
      : `Signed URL, valid until ${shortDate(signed.until)} (one year); it captures exactly this page with these options and cannot be altered.`
  }${fresh ? ' "Capture again" is left out of it: a published URL with it would make every visit a new capture on your account.' : ''}`;
  return {
    previewUrl: signed.previewUrl,
    signedUrl: signed.publicUrl,
    signedHint,
    curl: [
      `curl -sS -H "x-api-key: $CARDSHOT_KEY" \\`,
      `  ${shellQuote(`${opts.baseUrl}${path}`)} \\`,
      `  -o ${out}`,
    ].join('\n'),
    keyId: key.id,
    format,
  };
}

/**
 * POST /render/url with the options and the credentials' names, their values left as `…`: the
 * page never shows a secret it was given, and the command is filled in where it runs.
 */
function postCurl(
  base: string,
  params: Array<[string, string]>,
  names: CredentialNames,
  out: string,
): string {
  const body: Record<string, unknown> = Object.fromEntries(params);
  if (names.headers.length > 0) body.headers = Object.fromEntries(names.headers.map((n) => [n, '…']));
  if (names.cookies.length > 0) body.cookies = names.cookies.map((name) => ({ name, value: '…' }));
  if (names.basicAuth) body.basicAuth = { username: '…', password: '…' };
  if (names.userAgent) body.userAgent = '…';
  return [
    `curl -sS -H "x-api-key: $CARDSHOT_KEY" -H 'Content-Type: application/json' \\`,
    `  ${shellQuote(`${base}/render/url`)} -o ${out} --data-binary @- <<'JSON'`,
    JSON.stringify(body, null, 2),
    'JSON',
  ].join('\n');
}
