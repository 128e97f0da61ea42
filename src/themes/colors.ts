import { AppError } from '../errors.js';

const HEX = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i;

/**
 * `#RRGGBB` (upper case) from `#rgb`, `#rrggbb` or either without `#`; 400 naming the field
 * otherwise. One spelling per colour keeps the theme's version stable however it was typed.
 */
export function parseHexColor(field: string, value: string): string {
  const m = HEX.exec(value.trim());
  if (!m) {
    throw new AppError(
      'bad_request',
      `${field} must be a hex colour like #1A2B3C (got ${JSON.stringify(clip(value))})`,
    );
  }
  const hex = m[1]!;
  const full = hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex;
  return `#${full.toUpperCase()}`;
}

/** WCAG 2 relative luminance of `#RRGGBB`. */
export function luminance(color: string): number {
  const channel = (i: number) => {
    const c = Number.parseInt(color.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** WCAG 2 contrast ratio of two `#RRGGBB` colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** WCAG's minimum for large text (a card's headline is always large). */
export const MIN_CONTRAST = 3;

/**
 * 400 when the text colour is too close to the background to read. The ratio is rounded down,
 * so a colour pair that fails never shows "3:1".
 */
export function assertReadable(text: string, background: string): void {
  const ratio = contrastRatio(text, background);
  if (ratio >= MIN_CONTRAST) return;
  const shown = (Math.floor(ratio * 100) / 100).toFixed(2);
  throw new AppError(
    'bad_request',
    `text colour ${text} on background ${background} has a contrast ratio of ${shown}:1; at least ${MIN_CONTRAST}:1 is needed (WCAG large text)`,
  );
}

function clip(s: string): string {
  return s.length > 20 ? `${s.slice(0, 20)}…` : s;
}
