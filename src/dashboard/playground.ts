import { keyStatus } from '../accounts/manager.js';
import { assertTemplateAllowed, type Plan } from '../auth/plans.js';
import type { ServerSecrets } from '../auth/secret.js';
import { encodeRfc3986, signUrl } from '../auth/signing.js';
import { AppError } from '../errors.js';
import { parseTemplateRequest, requestBody, type TemplateRequest } from '../render/template/request.js';
import type { TemplateRegistry } from '../render/template/types.js';
import type { ApiKeyRecord } from '../storage/store.js';
import { escapeHtml } from './html.js';
import { dateTime, shortDate } from './views/format.js';

/** What the playground form sends (all strings; empty means "leave out"). */
export interface PlaygroundInput {
  template: string;
  title: string;
  subtitle: string;
  brand: string;
  imageUrl: string;
  key: string;
}

/** What the page shows for a valid input. */
export interface PlaygroundResult {
  /** Same-origin, short-lived signed URL the preview <img> loads from the real endpoint. */
  previewUrl: string;
  /** Absolute, long-lived signed URL for the og:image tag. */
  ogUrl: string;
  metaTag: string;
  /** How long the og:image URL works, and a warning when its key cuts that short. */
  ogHint: string;
  curl: string;
  keyId: string;
}

/** Preview URLs live 15 to 25 minutes: rounded so identical inputs give identical URLs (and browser cache hits). */
const PREVIEW_MS = 15 * 60_000;
const PREVIEW_ROUND_MS = 10 * 60_000;
/** og:image URLs: a year, like `npx cardshot sign`, since crawlers re-read them long after publishing. */
const OG_MS = 365 * 86_400_000;
const DAY_MS = 86_400_000;

/**
 * The account's keys the playground can sign with: active ones, production first, then the
 * ones that live longest (no expiry first), since a published og:image URL dies with its key.
 */
export function signingKeys(keys: readonly ApiKeyRecord[], now: number): ApiKeyRecord[] {
  const rank = (k: ApiKeyRecord) => (k.environment === 'production' ? 0 : 1);
  const life = (k: ApiKeyRecord) => k.expiresAt ?? Number.POSITIVE_INFINITY;
  return keys
    .filter((k) => keyStatus(k, now) === 'active')
    .sort((a, b) => rank(a) - rank(b) || life(b) - life(a) || b.createdAt - a.createdAt);
}

/** The key the visitor picked, else the best one to sign with; 400 when the account has none. */
export function playgroundKey(
  keys: readonly ApiKeyRecord[],
  wanted: string,
  now: number,
  what: string,
): ApiKeyRecord {
  const usable = signingKeys(keys, now);
  const key = usable.find((k) => k.id === wanted) ?? usable[0];
  if (!key)
    throw new AppError('bad_request', `Create an API key first: ${what} are signed with one of your keys.`);
  return key;
}

/**
 * Validates the fields exactly as the API does (400 with the API's message; 403 when the
 * template is not on the plan) and signs URLs with one of the account's keys. The browser
 * never sees a key or a signing secret: the server derives the secret from the key id.
 */
export function buildPlayground(opts: {
  input: PlaygroundInput;
  plan: Plan;
  keys: readonly ApiKeyRecord[];
  secrets: ServerSecrets;
  baseUrl: string;
  now: number;
  /** The templates a request may name (absent: the built-ins). */
  registry?: TemplateRegistry;
}): PlaygroundResult {
  const { input } = opts;
  const fields: Record<string, string> = { template: input.template, title: input.title };
  for (const name of ['subtitle', 'brand', 'imageUrl'] as const)
    if (input[name] !== '') fields[name] = input[name];
  const parsed = parseTemplateRequest(fields, 'query', undefined, opts.registry);
  assertTemplateAllowed(opts.plan, parsed.template);
  const key = playgroundKey(opts.keys, input.key, opts.now, 'previews and og:image URLs');
  const path = `/render/template?${query(parsed)}`;
  const signed = signPlaygroundUrls(path, key, opts);
  const ogUrl = signed.publicUrl;
  const ogHint = signed.cutByKey
    ? `Signed URL, valid only until ${dateTime(signed.until)}, when key ${key.prefix}…${key.last4} expires: the tag stops working then. For a tag you publish, sign with a key that does not expire.`
    : `Signed URL, valid until ${shortDate(signed.until)} (one year); it renders exactly this card and cannot be altered.`;
  return {
    previewUrl: signed.previewUrl,
    ogUrl,
    metaTag: `<meta property="og:image" content="${escapeHtml(ogUrl)}">`,
    ogHint,
    curl: curlCommand(opts.baseUrl, parsed),
    keyId: key.id,
  };
}

/** What `signPlaygroundUrls` gives a playground: two signed URLs for one request path. */
export interface SignedPlaygroundUrls {
  /** Same-origin, short-lived: the preview the page loads from the real endpoint. */
  previewUrl: string;
  /** Absolute and long-lived (a year, or less when the key expires first): for publishing. */
  publicUrl: string;
  /** When `publicUrl` stops working (ms). */
  until: number;
  /** True when the key's expiry, not the year, sets `until`. */
  cutByKey: boolean;
}

/**
 * Signs `path` (with its query) twice with `key`: a preview URL whose expiry is rounded so
 * identical inputs give identical URLs (browser cache hits), and a long-lived public URL.
 * A signed URL never outlives its key.
 */
export function signPlaygroundUrls(
  path: string,
  key: ApiKeyRecord,
  opts: { secrets: ServerSecrets; baseUrl: string; now: number },
): SignedPlaygroundUrls {
  const secret = opts.secrets.signingSecret(key.id);
  const cap = (t: number) => (key.expiresAt === null ? t : Math.min(t, key.expiresAt));
  const previewExp = Math.ceil((opts.now + PREVIEW_MS) / PREVIEW_ROUND_MS) * PREVIEW_ROUND_MS;
  const publicExp = Math.ceil((opts.now + OG_MS) / DAY_MS) * DAY_MS;
  const until = cap(publicExp);
  return {
    previewUrl: signUrl(path, { keyId: key.id, signingSecret: secret, expiresAt: cap(previewExp) / 1000 }),
    publicUrl: signUrl(`${opts.baseUrl}${path}`, {
      keyId: key.id,
      signingSecret: secret,
      expiresAt: Math.floor(until / 1000),
    }),
    until,
    cutByKey: until < publicExp,
  };
}

function query(r: TemplateRequest): string {
  return Object.entries(requestBody(r))
    .map(([n, value]) => `${n}=${encodeRfc3986(String(value))}`)
    .join('&');
}

/** `s` as one POSIX shell word: single-quoted, each `'` written as `'\\''`. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A POST with the key from the environment: the way a server renders cards. */
function curlCommand(baseUrl: string, r: TemplateRequest): string {
  return [
    `curl -sS -X POST ${shellQuote(`${baseUrl}/render/template`)} \\`,
    `  -H "x-api-key: $CARDSHOT_KEY" \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d ${shellQuote(JSON.stringify(requestBody(r)))} \\`,
    '  -o card.png',
  ].join('\n');
}
