import { measuredFace } from '../../fonts/metrics.js';
import { FAMILY } from '../text/fonts.js';
import type { AnyFace } from '../text/measured-face.js';
import type { FaceKey } from '../text/text-metrics.js';
import type { CardFont, CardFontFace, CardTheme } from './types.js';

/**
 * What templates take from an account's brand theme (the SDK re-exports these; the decor cache
 * through its own `cachedDecor`, which adds the template's hash). The theme gives three colours;
 * the quiet tones a card also needs (subtitle grey, hairlines, text on the accent) are computed
 * from them, so any theme stays readable instead of mixing a brand's colours with the template's
 * own greys.
 */

type Rgb = readonly [number, number, number];

function rgb(hex: string): Rgb {
  const n = Number.parseInt(hex.slice(1, 7), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function hex([r, g, b]: Rgb): string {
  return `#${[r, g, b].map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`.toUpperCase();
}

/** `a` moved toward `b` by `t` (0 = a, 1 = b), in sRGB: what a designer's opacity swatch gives. */
export function mix(a: string, b: string, t: number): string {
  const [x, y] = [rgb(a), rgb(b)];
  return hex([0, 1, 2].map((i) => x[i]! + (y[i]! - x[i]!) * t) as unknown as Rgb);
}

/** `color` as `rgba()` with `alpha`, for hairlines and frames drawn over varying backdrops. */
export function withAlpha(color: string, alpha: number): string {
  const [r, g, b] = rgb(color);
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}

/** WCAG relative luminance. */
function luminance(color: string): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const [r, g, b] = rgb(color).map(lin) as unknown as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio (1–21). */
export function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p) as [number, number];
  return (x + 0.05) / (y + 0.05);
}

/** White or near-black, whichever reads better on `background` (monogram letters on the accent). */
export function onColor(background: string): string {
  return contrast('#FFFFFF', background) >= contrast('#111111', background) ? '#FFFFFF' : '#111111';
}

/**
 * A secondary text tone: `text` faded toward `background` as far as the design asks (`fade`), but
 * never below 4.5:1 contrast (WCAG AA for body text), so a low-contrast theme keeps readable
 * subtitles.
 */
export function mutedTone(text: string, background: string, fade = 0.38): string {
  for (let t = fade; t > 0; t -= 0.02) {
    const tone = mix(text, background, t);
    if (contrast(tone, background) >= 4.5) return tone;
  }
  return text;
}

/** How a headline is set: the template's own face, or the theme's. */
export interface HeadlineFace {
  /** A bundled face, or an uploaded font measured from its own advance widths. */
  face: AnyFace;
  family: string;
  weight: number;
}

/**
 * The theme's headline face: its uploaded family when it has one (at the weight nearest the
 * design's), else `sans` = Inter 800 or `serif` = Source Serif 4 700; without a theme `fallback`.
 */
export function headlineFace(theme: CardTheme | undefined, fallback: HeadlineFace): HeadlineFace {
  if (!theme) return fallback;
  if (theme.customFont) return uploadedFace(theme.customFont, fallback.weight, 'sans-800');
  return theme.font === 'serif'
    ? { face: 'serif-700', family: FAMILY.serif, weight: 700 }
    : { face: 'sans-800', family: FAMILY.sans, weight: 800 };
}

/**
 * The theme's face for text other than headlines (subtitles, labels): its uploaded family when
 * it has one, else `fallback` (the template's own text face).
 */
export function bodyFace(theme: CardTheme | undefined, fallback: HeadlineFace): HeadlineFace {
  if (!theme?.customFont) return fallback;
  return uploadedFace(theme.customFont, fallback.weight, 'sans-400');
}

/** The upright face of `font` nearest `weight` (a variable face covers its range), measured. */
function uploadedFace(font: CardFont, weight: number, fallback: FaceKey): HeadlineFace {
  const upright = font.faces.filter((f) => !f.italic);
  const faces = upright.length > 0 ? upright : font.faces;
  const distance = (f: CardFontFace) =>
    weight < f.weightRange[0]
      ? f.weightRange[0] - weight
      : weight > f.weightRange[1]
        ? weight - f.weightRange[1]
        : 0;
  const best = faces.reduce((a, b) => (distance(b) < distance(a) ? b : a));
  const drawn = Math.min(best.weightRange[1], Math.max(best.weightRange[0], weight));
  return {
    face: measuredFace(best.sha256.slice(0, 16), best.metrics, drawn, fallback),
    family: font.engineName,
    weight: drawn,
  };
}

/** The logo's image `src`: named by its sha256, so takumi's cache never shows another account's logo. */
export function logoSource(logo: NonNullable<CardTheme['logo']>): [src: string, data: Uint8Array] {
  return [`theme-logo/${logo.sha256.slice(0, 32)}.png`, logo.data];
}

/** The logo's drawn size inside a `width`×`height` box: contained, aspect ratio kept, never stretched. */
export function containIn(
  logo: { width: number; height: number },
  width: number,
  height: number,
): { width: number; height: number } {
  const scale = Math.min(width / logo.width, height / logo.height);
  return {
    width: Math.max(1, Math.round(logo.width * scale)),
    height: Math.max(1, Math.round(logo.height * scale)),
  };
}

/** Decor SVG bytes by key (template, variant, size, theme version); a small LRU bounds memory. */
const DECOR_CACHE_ENTRIES = 128;
const decorCache = new Map<string, Uint8Array>();

/**
 * The decor layer for `key`, built by `make` on first use. Themed decor is rebuilt per theme
 * version, not per render: a busy account's cards reuse the same bytes (and takumi's raster).
 */
export function cachedDecor(key: string, make: () => Uint8Array): Uint8Array {
  const hit = decorCache.get(key);
  if (hit) {
    decorCache.delete(key);
    decorCache.set(key, hit);
    return hit;
  }
  const bytes = make();
  decorCache.set(key, bytes);
  if (decorCache.size > DECOR_CACHE_ENTRIES) decorCache.delete(decorCache.keys().next().value as string);
  return bytes;
}

/** The decor cache's size, for the test that it stays bounded. */
export function decorCacheSize(): number {
  return decorCache.size;
}

/** The cache-key suffix of a theme: its version, or `base` for the template's own look. */
export function themeKey(theme: CardTheme | undefined): string {
  return theme ? `t${theme.version.slice(0, 16)}` : 'base';
}
