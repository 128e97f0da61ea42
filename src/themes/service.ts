/**
 * Brand themes: validation, logo normalisation and a small per-node cache in front of the store.
 *
 * The card route asks `get(accountId)` on every request, so reads are cached per node for
 * `themeCacheSeconds` (a few seconds): a change made through this node is seen at once (its
 * entry is dropped), one made through another node within that time. Logos are normalised
 * once, when set, and stored with the theme: no card ever fetches or decodes a user's file.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { AppError } from '../errors.js';
import type { FontService } from '../fonts/service.js';
import { type Clock, systemClock } from '../lib/clock.js';
import { createWorkQueue } from '../lib/work-queue.js';
import type { ArtworkFetcher } from '../render/image/artwork.js';
import type { CardTheme, ThemeFont, ThemeSource } from '../render/template/types.js';
import type { ThemeRecord, ThemeStore } from '../storage/store.js';
import { assertReadable, parseHexColor } from './colors.js';
import { type NormalisedLogo, normaliseLogo } from './logo.js';
import type { ThemeConfig } from './settings.js';

/** The bundled families a theme may choose (see render/text/fonts.ts). */
export const THEME_FONTS: readonly ThemeFont[] = Object.freeze(['sans', 'serif']);

/** What a new theme starts from: slate with an indigo accent, the dashboard's own look. */
export const DEFAULT_THEME = Object.freeze({
  background: '#0F172A',
  text: '#F8FAFC',
  accent: '#6366F1',
  font: 'sans' as ThemeFont,
});

/** A change to an account's theme; absent parts keep their stored (or default) value. */
export interface ThemeInput {
  background?: string;
  text?: string;
  accent?: string;
  font?: string;
  /** One of the account's uploaded families (checked when set); null or '' sets none. */
  fontFamily?: string | null;
  /** A new logo from file bytes or from a URL (fetched once, through the URL guard); null removes it. */
  logo?: { file: Buffer } | { url: string } | null;
}

/** A theme as the dashboard and CLI show it. */
export interface StoredTheme extends CardTheme {
  updatedAt: number;
}

export interface ThemeService extends ThemeSource {
  /** The account's uploaded fonts (themes name their families). */
  readonly fonts: FontService | undefined;
  /** The account's theme straight from the database (no cache), or undefined. */
  read(accountId: string): Promise<StoredTheme | undefined>;
  /** The theme `input` would give, validated but not saved (a preview); only a stored logo or none. */
  draft(accountId: string, input: Omit<ThemeInput, 'logo'> & { logo?: null }): Promise<CardTheme>;
  /** Validates, normalises and saves; the stored theme. */
  set(accountId: string, input: ThemeInput): Promise<StoredTheme>;
  /** Removes the account's theme; true when it had one. */
  clear(accountId: string): Promise<boolean>;
  close(): Promise<void>;
}

/** Bytes of cached themes (logos dominate); a few hundred accounts with logos fit. */
const CACHE_BYTES = 32 * 1024 * 1024;

/** How long a theme read from the database is still used when the database cannot be reached (as for API keys). */
const STALE_MS = 30_000;

/** Creates the theme service over the store; logo URLs go through `artwork` (the URL guard, per-account bounds). */
export function createThemeService(
  config: ThemeConfig,
  deps: { store: ThemeStore; artwork: ArtworkFetcher; fonts?: FontService; clock?: Clock },
): ThemeService {
  const clock = deps.clock ?? systemClock;
  const ttl = config.themeCacheSeconds * 1000;
  // Entries outlive the TTL (up to STALE_MS) only to answer while the database is unreachable.
  const cache = new LRUCache<string, { theme: CardTheme | null; at: number }>({
    maxSize: CACHE_BYTES,
    sizeCalculation: (e) => 256 + (e.theme?.logo?.data.length ?? 0),
  });
  // Bumped on every local change: a read that began before it must not refill the cache with
  // what it read (the old theme), or the change would take a whole TTL to show on this node.
  let generation = 0;
  // Decoding logos is CPU work: two at a time per node, one per account.
  const logos = createWorkQueue({ name: 'theme logos', concurrency: 2, maxWaiting: 16 });
  const limits = { maxBytes: config.themeLogoMaxBytes, maxPixels: config.themeLogoMaxPixels };

  const loadLogo = async (accountId: string, logo: { file: Buffer } | { url: string }) => {
    const owner = { id: accountId, concurrency: 1, maxWaiting: 1, overShare: busyLogo };
    const decode = { decoder: deps.artwork.decoder, account: accountId };
    if ('file' in logo)
      return logos.run(() => normaliseLogo(logo.file, limits, 'logo', decode), undefined, owner);
    // The download stops at the logo's own limit (it read up to imageUrl's 5 MB first).
    const fetched = await deps.artwork
      .fetch(logo.url, undefined, { account: accountId, maxBytes: limits.maxBytes })
      .catch((err) => {
        throw renamed(err);
      });
    try {
      return await logos
        .run(() => normaliseLogo(fetched.bytes, limits, 'logoUrl', decode), undefined, owner)
        .catch((err: unknown) => {
          // From a URL the size is the remote file's fault, not this request's body.
          if (err instanceof AppError && err.code === 'payload_too_large') {
            throw new AppError('unprocessable', err.message);
          }
          throw err;
        });
    } finally {
      fetched.release();
    }
  };

  const merge = (
    stored: ThemeRecord | undefined,
    input: ThemeInput,
    logo: NormalisedLogo | null,
  ): CardTheme => {
    const base = stored ?? DEFAULT_THEME;
    const background =
      input.background === undefined ? base.background : parseHexColor('background', input.background);
    const text = input.text === undefined ? base.text : parseHexColor('text', input.text);
    const accent = input.accent === undefined ? base.accent : parseHexColor('accent', input.accent);
    const font = input.font === undefined ? (base.font as ThemeFont) : parseFont(input.font);
    const fontFamily =
      input.fontFamily === undefined
        ? ((stored?.fontFamily ?? null) as string | null)
        : input.fontFamily === null || input.fontFamily.trim() === ''
          ? null
          : input.fontFamily.trim();
    assertReadable(text, background);
    return {
      background,
      text,
      accent,
      font,
      // Absent rather than null, so a theme without one reads exactly as before.
      ...(fontFamily ? { fontFamily } : {}),
      ...(logo ? { logo } : {}),
      version: versionOf(background, text, accent, font, logo, fontFamily),
    };
  };

  /** The theme with its uploaded family attached; the family's content hash joins the version. */
  const withFont = async <T extends CardTheme>(accountId: string, theme: T): Promise<T> => {
    if (!theme.fontFamily || !deps.fonts) return theme;
    const customFont = await deps.fonts.resolve(accountId, theme.fontFamily);
    if (!customFont) return theme;
    const version = createHash('sha256').update(`${theme.version}:${customFont.hash}`).digest('hex');
    return { ...theme, customFont, version };
  };

  /** A family named in a change must be one of the account's own (never another account's). */
  const checkFamily = async (accountId: string, input: ThemeInput) => {
    const family = input.fontFamily?.trim();
    if (!family) return;
    const found = deps.fonts && (await deps.fonts.resolve(accountId, family));
    if (!found) {
      throw new AppError(
        'bad_request',
        `fontFamily "${family}" is not one of this account's fonts; upload it first (POST /fonts)`,
      );
    }
  };

  const logoFor = async (accountId: string, stored: ThemeRecord | undefined, input: ThemeInput) => {
    if (input.logo === null) return null;
    if (input.logo === undefined) return stored?.logo ?? null;
    return loadLogo(accountId, input.logo);
  };

  return {
    fonts: deps.fonts,

    async get(accountId) {
      const now = clock.now();
      const hit = cache.get(accountId);
      if (hit && now - hit.at < ttl) return hit.theme ? withFont(accountId, hit.theme) : undefined;
      const started = generation;
      let record: ThemeRecord | undefined;
      try {
        record = await deps.store.getTheme(accountId);
      } catch (err) {
        // Like verified keys: a theme read moments ago keeps cards looking the same while the
        // database is away, rather than every themed card failing at once.
        if (hit && now - hit.at < STALE_MS) return hit.theme ? withFont(accountId, hit.theme) : undefined;
        throw new AppError('unavailable', 'Brand themes cannot be read right now; retry shortly', {
          retryAfter: 5,
          cause: err,
        });
      }
      const theme = record ? toCardTheme(record) : null;
      if (started === generation) cache.set(accountId, { theme, at: now });
      return theme ? withFont(accountId, theme) : undefined;
    },

    async read(accountId) {
      const record = await deps.store.getTheme(accountId);
      return record && { ...toCardTheme(record), updatedAt: record.updatedAt };
    },

    async draft(accountId, input) {
      const stored = await deps.store.getTheme(accountId);
      await checkFamily(accountId, input);
      return withFont(accountId, merge(stored, input, input.logo === null ? null : (stored?.logo ?? null)));
    },

    async set(accountId, input) {
      const stored = await deps.store.getTheme(accountId);
      // Colours first: a refused colour costs no logo download.
      merge(stored, { ...input, logo: null }, null);
      await checkFamily(accountId, input);
      const logo = await logoFor(accountId, stored, input);
      const theme = merge(stored, input, logo);
      const updatedAt = clock.now();
      await deps.store.setTheme({ accountId, ...theme, logo: theme.logo ?? null, updatedAt });
      generation++;
      cache.delete(accountId);
      return { ...theme, updatedAt };
    },

    async clear(accountId) {
      const had = await deps.store.clearTheme(accountId);
      generation++;
      cache.delete(accountId);
      return had;
    },

    async close() {
      cache.clear();
      await logos.close();
    },
  };
}

/** The theme's content hash: what the card's ETag and cache key carry. */
export function versionOf(
  background: string,
  text: string,
  accent: string,
  font: string,
  logo: { sha256: string } | null,
  fontFamily: string | null = null,
): string {
  // A theme without an uploaded family hashes exactly as before, so its cards keep their ETags.
  return createHash('sha256')
    .update(
      JSON.stringify([
        background,
        text,
        accent,
        font,
        logo?.sha256 ?? '',
        ...(fontFamily ? [fontFamily] : []),
      ]),
    )
    .digest('hex');
}

function parseFont(value: string): ThemeFont {
  const font = value.trim().toLowerCase();
  if ((THEME_FONTS as readonly string[]).includes(font)) return font as ThemeFont;
  throw new AppError('bad_request', `font must be one of: ${THEME_FONTS.join(', ')}`);
}

function toCardTheme(r: ThemeRecord): CardTheme {
  return {
    background: r.background,
    text: r.text,
    accent: r.accent,
    font: r.font === 'serif' ? 'serif' : 'sans',
    ...(r.fontFamily ? { fontFamily: r.fontFamily } : {}),
    ...(r.logo ? { logo: r.logo } : {}),
    version: r.version,
  };
}

/** The artwork fetcher's messages name imageUrl; here the input is logoUrl. */
function renamed(err: unknown): unknown {
  if (!(err instanceof AppError) || !err.message.startsWith('imageUrl')) return err;
  return new AppError(err.code, `logoUrl${err.message.slice('imageUrl'.length)}`, {
    ...(err.detail ? { detail: err.detail } : {}),
    ...(err.retryAfter !== undefined ? { retryAfter: err.retryAfter } : {}),
    cause: err,
  });
}

function busyLogo(): AppError {
  return new AppError('rate_limited', 'A logo for this account is already being processed; retry shortly', {
    retryAfter: 2,
  });
}
