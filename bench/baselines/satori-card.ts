import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Resvg } from '@resvg/resvg-js';
import satori from 'satori';

/**
 * The baseline: the blog card drawn the usual Vercel-style way, satori (layout + text to SVG
 * paths) then resvg-js (SVG to PNG). Same size, palette and structure as the takumi `blog`
 * template (paper background, corner arcs, brand row on top, serif headline and sans subtitle
 * at the bottom left), with the same fonts. Plain `{ type, props }` objects instead of JSX so
 * the bench needs no JSX build step. Set up as a competent user would: fonts read once, resvg
 * told not to scan system fonts (satori already turned all text into paths).
 */

const W = 1200;
const H = 630;
const C = { paper: '#F6F1E9', ink: '#1F1A17', muted: '#6B625A', accent: '#C2410C' };

/** The blog card's fields, as the bench passes them to both engines. */
export interface CardText {
  title: string;
  subtitle: string;
  brand: string;
}

/** A satori element: what JSX would compile to. */
interface El {
  type: string;
  props: Record<string, unknown> & { style?: Record<string, string | number>; children?: El | El[] | string };
}
const el = (
  type: string,
  style: Record<string, string | number>,
  children?: El | El[] | string,
  extra = {},
): El => ({
  type,
  props: { style, ...(children === undefined ? {} : { children }), ...extra },
});

const arcs = [110, 170, 230, 290, 350]
  .map(
    (r, i) =>
      `<circle cx="${W}" cy="0" r="${r}" fill="none" stroke="${C.accent}" stroke-opacity="${(0.34 - i * 0.06).toFixed(2)}" stroke-width="1.5"/>`,
  )
  .join('');
const DECOR = `data:image/svg+xml;base64,${Buffer.from(
  `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><circle cx="${W}" cy="0" r="56" fill="${C.accent}" fill-opacity="0.9"/>${arcs}</svg>`,
).toString('base64')}`;

function card(t: CardText): El {
  return el(
    'div',
    {
      width: W,
      height: H,
      display: 'flex',
      flexDirection: 'column',
      justifyContent: 'space-between',
      alignItems: 'flex-start',
      padding: '68px 80px',
      // satori sizes boxes as content-box; takumi, like most CSS resets, as border-box.
      boxSizing: 'border-box',
      backgroundColor: C.paper,
      position: 'relative',
    },
    [
      el('img', { position: 'absolute', left: 0, top: 0, width: W, height: H }, undefined, {
        src: DECOR,
        width: W,
        height: H,
      }),
      el('div', { display: 'flex', alignItems: 'center', gap: 14, height: 44 }, [
        el(
          'div',
          {
            width: 44,
            height: 44,
            borderRadius: 12,
            backgroundColor: C.accent,
            display: 'flex',
            alignItems: 'center',
            justifyContent: 'center',
            color: '#FFFFFF',
            fontFamily: 'Inter',
            fontWeight: 800,
            fontSize: 24,
          },
          t.brand.slice(0, 1).toUpperCase(),
        ),
        el(
          'div',
          { fontFamily: 'Inter', fontWeight: 600, fontSize: 24, color: C.ink, letterSpacing: '-0.01em' },
          t.brand,
        ),
      ]),
      el('div', { display: 'flex', flexDirection: 'column', gap: 22 }, [
        // satori has no fitting step; 76 px is the size the takumi template picks for these titles.
        el(
          'div',
          {
            width: 960,
            fontFamily: 'Source Serif 4',
            fontWeight: 700,
            fontSize: 76,
            lineHeight: 1.1,
            letterSpacing: '-0.012em',
            color: C.ink,
          },
          t.title,
        ),
        el(
          'div',
          {
            width: 860,
            fontFamily: 'Inter',
            fontWeight: 400,
            fontSize: 30,
            lineHeight: 1.4,
            color: C.muted,
          },
          t.subtitle,
        ),
      ]),
    ],
  );
}

/** Per-render result with the two stages timed apart. */
export interface SatoriRender {
  png: Buffer;
  svgMs: number;
  pngMs: number;
}

/** Loads the fonts (satori reads .woff, not .woff2) and returns the render function. */
export async function createSatoriCard(): Promise<(t: CardText) => Promise<SatoriRender>> {
  const require = createRequire(import.meta.url);
  const font = (pkg: string, file: string) => readFile(require.resolve(`@fontsource/${pkg}/files/${file}`));
  const fonts = [
    { name: 'Inter', weight: 400 as const, data: await font('inter', 'inter-latin-400-normal.woff') },
    { name: 'Inter', weight: 600 as const, data: await font('inter', 'inter-latin-600-normal.woff') },
    { name: 'Inter', weight: 800 as const, data: await font('inter', 'inter-latin-800-normal.woff') },
    {
      name: 'Source Serif 4',
      weight: 700 as const,
      data: await font('source-serif-4', 'source-serif-4-latin-700-normal.woff'),
    },
  ].map((f) => ({ ...f, style: 'normal' as const }));

  return async (t) => {
    const start = performance.now();
    const svg = await satori(card(t), { width: W, height: H, fonts });
    const mid = performance.now();
    const png = new Resvg(svg, { fitTo: { mode: 'original' }, font: { loadSystemFonts: false } })
      .render()
      .asPng();
    return { png, svgMs: mid - start, pngMs: performance.now() - mid };
  };
}
