import { keyStatus } from '../accounts/manager.js';
import type { Plan } from '../auth/plans.js';
import type { ServerSecrets } from '../auth/secret.js';
import { encodeRfc3986, signUrl } from '../auth/signing.js';
import { AppError } from '../errors.js';
import { allowCard } from '../render/plan-gate.js';
import { parseTemplateRequest, type TemplateRequest } from '../render/template/request.js';
import { isSizeName, SIZES } from '../render/template/sizes.js';
import type { SizeName, TemplateDefinition, TemplateRegistry } from '../render/template/types.js';
import type { ApiKeyRecord } from '../storage/store.js';
import { escapeHtml } from './html.js';
import { dateTime, shortDate } from './views/format.js';

/**
 * What the playground form sends, all strings (empty means "leave out"): the template, the
 * values of its declared fields and of brand, imageUrl and size by name, whether the account's
 * theme applies, and the key to sign with.
 */
export interface PlaygroundInput {
  template: string;
  values: Record<string, string>;
  /** Off sends `theme=none` (only for templates that draw a theme). */
  useTheme: boolean;
  key: string;
}

/** The form names a template's playground reads: its fields, then brand, imageUrl and size as it draws them. */
export function inputNames(def: TemplateDefinition | undefined): string[] {
  if (!def) return ['title', 'subtitle', 'brand', 'imageUrl'];
  return [
    ...Object.keys(def.fields),
    ...(def.uses.brand ? ['brand'] : []),
    ...(def.uses.artwork ? ['imageUrl'] : []),
    'size',
  ];
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
  /** The card's pixels at the size asked for. */
  width: number;
  height: number;
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
  registry: TemplateRegistry;
  plan: Plan;
  keys: readonly ApiKeyRecord[];
  secrets: ServerSecrets;
  baseUrl: string;
  now: number;
}): PlaygroundResult {
  const { input } = opts;
  const def = opts.registry.get(input.template);
  const fields = requestFields(input, def);
  const parsed = parseTemplateRequest(fields, 'query', undefined, opts.registry);
  // The render command's own plan check, so the page never signs a URL the API would refuse.
  allowCard(opts.plan, parsed);
  const key = playgroundKey(opts.keys, input.key, opts.now, 'previews and og:image URLs');
  const request = normalised(fields, parsed, def);
  const path = `/render/template?${query(request)}`;
  const signed = signPlaygroundUrls(path, key, opts);
  const ogUrl = signed.publicUrl;
  const ogHint = signed.cutByKey
    ? `Signed URL, valid only until ${dateTime(signed.until)}, when key ${key.prefix}…${key.last4} expires: the tag stops working then. For a tag you publish, sign with a key that does not expire.`
    : `Signed URL, valid until ${shortDate(signed.until)} (one year); it renders exactly this card and cannot be altered.`;
  const size = SIZES[isSizeName(fields.size ?? '') ? (fields.size as SizeName) : (def?.sizes[0] ?? 'og')];
  return {
    previewUrl: signed.previewUrl,
    ogUrl,
    metaTag: `<meta property="og:image" content="${escapeHtml(ogUrl)}">`,
    ogHint,
    curl: curlCommand(opts.baseUrl, request),
    keyId: key.id,
    width: size.width,
    height: size.height,
  };
}

/**
 * The flat API request for the form: required fields always (so an empty one gets the API's
 * "must not be empty"), optional ones when filled, the size only when it is not the template's
 * default and `theme=none` only when the template draws a theme and the box is unticked, so a
 * card's URL is the shortest one that draws it.
 */
function requestFields(input: PlaygroundInput, def: TemplateDefinition | undefined): Record<string, string> {
  const out: Record<string, string> = { template: input.template };
  for (const name of inputNames(def)) {
    const value = input.values[name] ?? '';
    const required = def?.fields[name]?.required === true || (!def && name === 'title');
    if (name === 'size' && value === def?.sizes[0]) continue;
    if (value !== '' || required) out[name] = value;
  }
  if (def?.uses.theme && !input.useTheme) out.theme = 'none';
  return out;
}

/**
 * The request as the API understood it: each value normalised by the parser where it hands
 * one back by name, numbers as numbers (a JSON body takes them so), in the form's order.
 */
function normalised(
  fields: Record<string, string>,
  parsed: TemplateRequest,
  def: TemplateDefinition | undefined,
): Array<[string, string | number]> {
  // The parser hands values back by name, at the top or under `fields` (declared fields).
  const top = parsed as unknown as Record<string, unknown>;
  const back = { ...top, ...((top.fields as Record<string, unknown> | undefined) ?? {}) };
  return Object.entries(fields).map(([name, value]): [string, string | number] => {
    const given = back[name];
    const text = typeof given === 'string' || typeof given === 'number' ? String(given) : value;
    return [name, def?.fields[name]?.type === 'number' ? Number(text) : text];
  });
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
  /** What the public URL signs when it differs from the preview (a screenshot without `fresh`). */
  publicPath = path,
): SignedPlaygroundUrls {
  const secret = opts.secrets.signingSecret(key.id);
  const cap = (t: number) => (key.expiresAt === null ? t : Math.min(t, key.expiresAt));
  const previewExp = Math.ceil((opts.now + PREVIEW_MS) / PREVIEW_ROUND_MS) * PREVIEW_ROUND_MS;
  const publicExp = Math.ceil((opts.now + OG_MS) / DAY_MS) * DAY_MS;
  const until = cap(publicExp);
  return {
    previewUrl: signUrl(path, { keyId: key.id, signingSecret: secret, expiresAt: cap(previewExp) / 1000 }),
    publicUrl: signUrl(`${opts.baseUrl}${publicPath}`, {
      keyId: key.id,
      signingSecret: secret,
      expiresAt: Math.floor(until / 1000),
    }),
    until,
    cutByKey: until < publicExp,
  };
}

function query(request: Array<[string, string | number]>): string {
  return request.map(([n, v]) => `${n}=${encodeRfc3986(String(v))}`).join('&');
}

/** `s` as one POSIX shell word: single-quoted, each `'` written as `'\\''`. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A POST with the key from the environment: the way a server renders cards. */
function curlCommand(baseUrl: string, request: Array<[string, string | number]>): string {
  return [
    `curl -sS -X POST ${shellQuote(`${baseUrl}/render/template`)} \\`,
    `  -H "x-api-key: $CARDSHOT_KEY" \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d ${shellQuote(JSON.stringify(Object.fromEntries(request)))} \\`,
    '  -o card.png',
  ].join('\n');
}
