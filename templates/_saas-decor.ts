import {
  type CardSize,
  type CardTheme,
  cachedDecor,
  mix,
  mutedTone,
  svgBytes,
  withAlpha,
} from 'cardshot/template';
import type { SaasLayout } from './_saas-layout.js';

/** The saas palette: near-black, violet and cyan light, a cool white headline. */
export interface SaasPalette {
  bg: string;
  ink: string;
  muted: string;
  violet: string;
  cyan: string;
  /** Hairlines (grid, window frame) as the ink's colour at low opacity. */
  line: string;
  frame: string;
  window: string;
}

const BASE: SaasPalette = {
  bg: '#09090F',
  ink: '#FFFFFF',
  muted: '#A1A1B5',
  violet: '#7C3AED',
  cyan: '#22D3EE',
  line: '#FFFFFF',
  frame: 'rgba(255, 255, 255, 0.12)',
  window: '#13131C',
};

/**
 * The template's palette, or one drawn from a theme: the accent lights the main glow and its
 * lighter tint the second, hairlines are the text colour at low opacity, so they read on light
 * and dark backgrounds alike.
 */
export function saasPalette(theme: CardTheme | undefined): SaasPalette {
  if (!theme) return BASE;
  return {
    bg: theme.background,
    ink: theme.text,
    muted: mutedTone(theme.text, theme.background),
    violet: theme.accent,
    cyan: mix(theme.accent, theme.text, 0.45),
    line: theme.text,
    frame: withAlpha(theme.text, 0.12),
    window: mix(theme.background, theme.text, 0.05),
  };
}

const CELL = 48;

/** Which backdrop a card needs: the window glow is baked in where the window will be. */
export type BackdropVariant = 'plain' | 'ltr' | 'rtl';

/**
 * Grid, glows and a horizon line as one SVG: takumi rasterises it once and caches the raster,
 * which measured 6 ms per card against 13–17 ms for the same radial gradients as CSS. The glows
 * keep to the top outer and bottom start corners at every size, scaled with the card.
 */
function backdrop(size: CardSize, L: SaasLayout, variant: BackdropVariant, c: SaasPalette): string {
  const { width: W, height: H } = size;
  const win = L.window;
  const x = variant === 'rtl' ? -win.outset : W + win.outset - win.width;
  const glow =
    variant === 'plain'
      ? ''
      : `<rect x="${x - 24}" y="${win.top - 10}" width="${win.width + 48}" height="${win.height}" rx="40" fill="${c.violet}" fill-opacity="0.55" filter="url(#blur)"/>
         <rect x="${x - 9}" y="${win.top - 9}" width="${win.width + 18}" height="${win.height + 18}" rx="22" fill="${c.line}" fill-opacity="0.06" stroke="${c.line}" stroke-opacity="0.1"/>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
  <defs>
    <pattern id="grid" width="${CELL}" height="${CELL}" patternUnits="userSpaceOnUse">
      <path d="M${CELL} 0H0V${CELL}" fill="none" stroke="${c.line}" stroke-opacity="0.07" stroke-width="1"/>
    </pattern>
    <radialGradient id="fade" cx="0.72" cy="0.2" r="0.75">
      <stop offset="0" stop-color="#FFFFFF" stop-opacity="1"/>
      <stop offset="1" stop-color="#FFFFFF" stop-opacity="0"/>
    </radialGradient>
    <mask id="m"><rect width="${W}" height="${H}" fill="url(#fade)"/></mask>
    <radialGradient id="violet" cx="0.5" cy="0.5" r="0.5">
      <stop offset="0" stop-color="${c.violet}" stop-opacity="0.55"/>
      <stop offset="0.6" stop-color="${c.violet}" stop-opacity="0.14"/>
      <stop offset="1" stop-color="${c.violet}" stop-opacity="0"/>
    </radialGradient>
    <filter id="blur" x="-30%" y="-30%" width="160%" height="160%"><feGaussianBlur stdDeviation="40"/></filter>
    <radialGradient id="cyan" cx="0.5" cy="0.5" r="0.5">
      <stop offset="0" stop-color="${c.cyan}" stop-opacity="0.22"/>
      <stop offset="1" stop-color="${c.cyan}" stop-opacity="0"/>
    </radialGradient>
  </defs>
  <rect width="${W}" height="${H}" fill="${c.bg}"/>
  <rect width="${W}" height="${H}" fill="url(#grid)" mask="url(#m)"/>
  <circle cx="${W - 190}" cy="-40" r="${520 * L.glow}" fill="url(#violet)"/>
  <circle cx="90" cy="${H + 70}" r="${420 * L.glow}" fill="url(#cyan)"/>
  ${glow}
</svg>`;
}

/** The backdrop's `src` and bytes, cached per size, variant and theme. */
export function saasBackdrop(
  size: CardSize,
  L: SaasLayout,
  variant: BackdropVariant,
  c: SaasPalette,
  themeKey: string,
): [src: string, data: Uint8Array] {
  // og keeps the name it always had, so the default card's image list is unchanged.
  const suffix = size.name === 'og' && themeKey === 'base' ? '' : `-${size.name}-${themeKey}`;
  const src = `saas/backdrop-${variant}-v1${suffix}.svg`;
  return [src, cachedDecor(src, () => svgBytes(backdrop(size, L, variant, c)))];
}
