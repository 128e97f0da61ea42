/**
 * The names of the screenshot options (issue 17), apart from their parsing so plans can name
 * them without the rest of the screenshot engine.
 */
export const OPTION_NAMES = [
  'fullPage',
  'selector',
  'waitForSelector',
  'delay',
  'darkMode',
  'hideSelectors',
  'blockAds',
  'blockCookieBanners',
  'scale',
  'format',
  'quality',
  'ttl',
  'fresh',
] as const;
export type OptionName = (typeof OPTION_NAMES)[number];

/**
 * What a plan without its own list allows: every option except those that cost a server the
 * most (a whole page, blocking lists) or bypass its cache (fresh).
 */
export const FREE_OPTIONS: readonly OptionName[] = OPTION_NAMES.filter(
  (n) => !['fullPage', 'blockAds', 'blockCookieBanners', 'fresh'].includes(n),
);
