import sharp from 'sharp';
import type { Artwork, TemplateFields } from '../../src/render/template/types.js';
import type { BuiltinName } from '../helpers/builtins.js';

/**
 * Illustrations for the README pictures only (goldens use the rasteriser-free `testArtwork`):
 * a product shot of headphones for `product`, a dashboard screenshot for `saas`.
 */
const SVG: Partial<Record<BuiltinName, (w: number, h: number) => string>> = {
  product: (
    w,
    h,
  ) => `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 400 400">
    <defs>
      <radialGradient id="bg" cx="0.5" cy="0.45" r="0.6"><stop offset="0" stop-color="#FFF7ED"/><stop offset="1" stop-color="#FDE7D4"/></radialGradient>
      <linearGradient id="cup" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#3F3F46"/><stop offset="1" stop-color="#18181B"/></linearGradient>
    </defs>
    <rect width="400" height="400" fill="url(#bg)"/>
    <ellipse cx="200" cy="338" rx="120" ry="14" fill="#000" fill-opacity="0.08"/>
    <path d="M96 214 C96 110 148 70 200 70 C252 70 304 110 304 214" fill="none" stroke="#27272A" stroke-width="22" stroke-linecap="round"/>
    <path d="M112 200 C112 124 152 92 200 92 C248 92 288 124 288 200" fill="none" stroke="#F97316" stroke-width="6" stroke-linecap="round"/>
    <rect x="66" y="196" width="72" height="124" rx="34" fill="url(#cup)"/>
    <rect x="262" y="196" width="72" height="124" rx="34" fill="url(#cup)"/>
    <rect x="118" y="214" width="22" height="88" rx="11" fill="#F97316"/>
    <rect x="260" y="214" width="22" height="88" rx="11" fill="#F97316"/>
  </svg>`,
  saas: (w, h) => `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 640 400">
    <rect width="640" height="400" fill="#0F0F17"/>
    <rect width="150" height="400" fill="#15151F"/>
    <rect x="20" y="24" width="26" height="26" rx="7" fill="#7C3AED"/>
    <rect x="56" y="31" width="70" height="12" rx="6" fill="#E4E4E7" fill-opacity="0.8"/>
    ${[86, 118, 150, 182, 214]
      .map(
        (y, i) =>
          `<rect x="20" y="${y}" width="${[96, 80, 104, 72, 88][i]}" height="10" rx="5" fill="#A1A1AA" fill-opacity="${i === 0 ? 0.9 : 0.35}"/>`,
      )
      .join('')}
    <rect x="176" y="26" width="180" height="16" rx="8" fill="#FAFAFA" fill-opacity="0.9"/>
    ${[0, 1, 2]
      .map(
        (
          i,
        ) => `<rect x="${176 + i * 150}" y="64" width="136" height="84" rx="12" fill="#1B1B27" stroke="#FFFFFF" stroke-opacity="0.08"/>
        <rect x="${192 + i * 150}" y="82" width="60" height="9" rx="4.5" fill="#A1A1AA" fill-opacity="0.5"/>
        <rect x="${192 + i * 150}" y="104" width="${[84, 64, 96][i]}" height="22" rx="6" fill="#FAFAFA" fill-opacity="0.92"/>`,
      )
      .join('')}
    <rect x="176" y="168" width="436" height="206" rx="12" fill="#1B1B27" stroke="#FFFFFF" stroke-opacity="0.08"/>
    ${Array.from({ length: 14 }, (_, i) => {
      const bar = [60, 88, 72, 110, 96, 130, 118, 142, 126, 150, 138, 160, 148, 170][i]!;
      return `<rect x="${200 + i * 29}" y="${352 - bar}" width="17" height="${bar}" rx="4" fill="${i % 2 ? '#22D3EE' : '#8B5CF6'}" fill-opacity="${0.55 + i * 0.03}"/>`;
    }).join('')}
  </svg>`,
};

/** Showcase artwork for a template's README picture, or undefined when the template draws none. */
export async function showcaseArtwork(
  template: BuiltinName,
  width: number,
  height: number,
): Promise<Artwork | undefined> {
  const svg = SVG[template];
  if (!svg) return undefined;
  const data = await sharp(Buffer.from(svg(width, height)))
    .png()
    .toBuffer();
  return { data, width, height };
}

/** README copy per template, when it should differ from the golden case's. */
export const SHOWCASE_COPY: Partial<Record<BuiltinName, Omit<TemplateFields, 'artwork'>>> = {
  saas: {
    title: 'Dashboards your whole team actually opens',
    subtitle: 'Live metrics, alerts and weekly reports in one place, now with AI summaries.',
    brand: 'Acme Cloud',
  },
};
