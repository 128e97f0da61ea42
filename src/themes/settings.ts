import { type ConfigOf, MiB, type SettingsGroup } from '../config/setting.js';

/** Brand themes: how large a logo may be, how long a node reuses a theme it read, and uploaded fonts' limits. */
export const themeSettings = {
  themeLogoMaxBytes: {
    kind: 'int',
    default: 1 * MiB,
    min: 1024,
    max: 20 * MiB,
    description:
      'Largest logo file a theme accepts (an upload, or the body behind a logo URL), before it is normalised to a PNG of at most 512×512.',
  },
  themeLogoMaxPixels: {
    kind: 'int',
    default: 16_000_000,
    min: 10_000,
    max: 268_402_689,
    description:
      'Largest decoded logo in pixels (guards against decompression bombs); read from the header before decoding.',
  },
  themeCacheSeconds: {
    kind: 'int',
    default: 5,
    min: 0,
    max: 3600,
    description:
      'How long a node reuses an account theme it read from the database. A change made on this node applies at once; on other nodes within this time.',
  },
  fontMaxBytes: {
    kind: 'int',
    default: 10 * MiB,
    min: 1024,
    max: 50 * MiB,
    description:
      'Largest font file an account may upload (WOFF2, WOFF, TrueType or OpenType); a bigger one gets 413.',
  },
  fontsPerAccount: {
    kind: 'int',
    default: 20,
    min: 0,
    max: 1000,
    description: 'Font files one account may keep; one more gets 409 until one is removed.',
  },
  fontMaxGlyphs: {
    kind: 'int',
    default: 50_000,
    min: 100,
    max: 65_535,
    description:
      'Most glyphs an uploaded font may have (a parser and memory bound; a full CJK family has ~30,000).',
  },
} as const satisfies SettingsGroup;

/** The whole group. */
type ThemeGroup = ConfigOf<typeof themeSettings>;
/** What the theme service reads. */
export type ThemeConfig = Pick<ThemeGroup, 'themeLogoMaxBytes' | 'themeLogoMaxPixels' | 'themeCacheSeconds'>;
/** What the account font service reads. */
export type FontConfig = Pick<
  ThemeGroup,
  'fontMaxBytes' | 'fontsPerAccount' | 'fontMaxGlyphs' | 'themeCacheSeconds'
>;
