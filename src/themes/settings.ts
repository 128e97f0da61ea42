import { type ConfigOf, MiB, type SettingsGroup } from '../config/setting.js';

/** Brand themes: how large a logo may be, and how long a node reuses a theme it read. */
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
} as const satisfies SettingsGroup;

/** What the theme service reads. */
export type ThemeConfig = ConfigOf<typeof themeSettings>;
