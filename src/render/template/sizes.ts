import type { CardSize, SizeName } from './types.js';

/**
 * The card sizes, by the networks that show them: Open Graph (Facebook, Slack, iMessage…),
 * X/Twitter's large summary card, square (Instagram and most feeds), LinkedIn's link preview and
 * full-screen stories (Instagram, TikTok, Reels).
 */
export const SIZES: Readonly<Record<SizeName, CardSize>> = Object.freeze({
  og: { name: 'og', width: 1200, height: 630 },
  twitter: { name: 'twitter', width: 1200, height: 675 },
  square: { name: 'square', width: 1080, height: 1080 },
  linkedin: { name: 'linkedin', width: 1200, height: 627 },
  story: { name: 'story', width: 1080, height: 1920 },
});

/** Size names in the order docs and errors list them. */
export const SIZE_NAMES: readonly SizeName[] = Object.freeze(Object.keys(SIZES) as SizeName[]);

/** The size a request gets when it names none. */
export const DEFAULT_SIZE: CardSize = SIZES.og;

/** Whether `name` is a size. */
export function isSizeName(name: string): name is SizeName {
  return Object.hasOwn(SIZES, name);
}
