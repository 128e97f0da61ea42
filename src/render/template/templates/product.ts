import type { Node } from '@takumi-rs/core';
import { FAMILY } from '../../text/fonts.js';
import { div, ImageBag, picture, svgBytes } from '../../text/nodes.js';
import { detectDirection, fontStack } from '../../text/script.js';
import { paragraph, richText } from '../../text/text.js';
import { brandInitial, brandLabel } from '../brand.js';
import { CARD_HEIGHT, CARD_WIDTH, type TemplateDefinition, type TemplateFields } from '../types.js';
import { artworkSource } from './artwork.js';
import { BUILTIN_FIELDS } from './fields.js';

/**
 * "Showcase": a bold sans headline on white beside a sunset-gradient stage where the product
 * photo sits on a white tile. Without a photo the tile shows the brand's monogram (or a spark),
 * so the card still reads as a product card rather than a missing image.
 */
const C = {
  bg: '#FFFFFF',
  ink: '#0C0A09',
  muted: '#57534E',
  pillBorder: '#E7E5E4',
  from: '#FFB457',
  via: '#FF6B6B',
  to: '#C050F0',
};

const PAD = 72;
const STAGE_WIDTH = 500;
const TILE = 430;
const ART = 390;
/** The gap between the text and the stage. */
const GUTTER = 56;
const TEXT_WIDTH = CARD_WIDTH - STAGE_WIDTH - PAD - GUTTER;
const TOP_ROW = 40;
const GAP = 24;

const TILE_X = (STAGE_WIDTH - TILE) / 2;
const TILE_Y = (CARD_HEIGHT - TILE) / 2;

/**
 * Stage gradient, rings and the tile's drop shadow in one SVG. takumi caches the raster, so the
 * blur is paid once per process: as a CSS box-shadow it cost ~4 ms on every card. The gradient
 * runs top to bottom because PNG filters compress vertical gradients far better than diagonal.
 */
const STAGE_SVG =
  svgBytes(`<svg xmlns="http://www.w3.org/2000/svg" width="${STAGE_WIDTH}" height="${CARD_HEIGHT}">
  <defs>
    <linearGradient id="g" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="${C.from}"/><stop offset="0.55" stop-color="${C.via}"/><stop offset="1" stop-color="${C.to}"/>
    </linearGradient>
    <filter id="blur" x="-30%" y="-30%" width="160%" height="160%"><feGaussianBlur stdDeviation="22"/></filter>
  </defs>
  <rect width="${STAGE_WIDTH}" height="${CARD_HEIGHT}" fill="url(#g)"/>
  ${[250, 310, 370]
    .map(
      (r, i) =>
        `<circle cx="${STAGE_WIDTH / 2}" cy="${CARD_HEIGHT / 2}" r="${r}" fill="none" stroke="#fff" stroke-opacity="${0.3 - i * 0.08}" stroke-width="1.5"/>`,
    )
    .join('')}
  <rect x="${TILE_X + 10}" y="${TILE_Y + 26}" width="${TILE - 20}" height="${TILE - 20}" rx="32" fill="#4C1D95" fill-opacity="0.35" filter="url(#blur)"/>
</svg>`);

const SPARK_SVG =
  svgBytes(`<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200" viewBox="0 0 200 200">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
    <stop offset="0" stop-color="${C.from}"/><stop offset="0.55" stop-color="${C.via}"/><stop offset="1" stop-color="${C.to}"/>
  </linearGradient></defs>
  <path d="M100 8 C108 70 130 92 192 100 C130 108 108 130 100 192 C92 130 70 108 8 100 C70 92 92 70 100 8Z" fill="url(#g)"/>
</svg>`);

const GRADIENT = `linear-gradient(135deg, ${C.from}, ${C.via} 55%, ${C.to})`;
/** The same sweep over the monogram's ink, which fills only the middle of its taller box. */
const MONOGRAM_GRADIENT = `linear-gradient(135deg, ${C.from} 25%, ${C.via} 55%, ${C.to} 78%)`;

function build(fields: TemplateFields) {
  const bag = new ImageBag();
  const dir = detectDirection(fields.title ?? '');

  const subtitle = fields.subtitle
    ? paragraph(
        fields.subtitle,
        {
          box: {
            face: 'sans-400',
            steps: [
              [27, 3],
              [25, 3],
              [23, 3],
            ],
            width: TEXT_WIDTH - 20,
            height: 120,
            lineHeight: 1.45,
          },
          family: FAMILY.sans,
          weight: 400,
          color: C.muted,
          align: dir,
          balance: true,
        },
        bag,
      )
    : undefined;
  const title = paragraph(
    fields.title ?? '',
    {
      box: {
        face: 'sans-800',
        steps: [
          [72, 2],
          [64, 3],
          [56, 3],
          [50, 4],
          [44, 5],
          [40, 6],
          [36, 7],
          [32, 8],
        ],
        width: TEXT_WIDTH,
        height: CARD_HEIGHT - 2 * PAD - 2 * (TOP_ROW + 32) - (subtitle ? subtitle.height + GAP : 0),
        lineHeight: 1.06,
        letterSpacing: -0.028,
      },
      family: FAMILY.sans,
      weight: 800,
      color: C.ink,
      balance: true,
    },
    bag,
  );

  const text = div(
    {
      display: 'flex',
      flexDirection: 'column',
      justifyContent: 'space-between',
      alignItems: 'flex-start',
      width: CARD_WIDTH - STAGE_WIDTH,
      height: CARD_HEIGHT,
      padding:
        dir === 'rtl' ? `${PAD}px ${PAD}px ${PAD}px ${GUTTER}px` : `${PAD}px ${GUTTER}px ${PAD}px ${PAD}px`,
    },
    [
      div({ display: 'flex', height: TOP_ROW, alignItems: 'center' }, [
        fields.brand ? brandPill(fields.brand, bag) : gradientBar(),
      ]),
      div({ display: 'flex', flexDirection: 'column', gap: GAP }, [
        title.node,
        ...(subtitle ? [subtitle.node] : []),
      ]),
      div({ display: 'flex', height: TOP_ROW, alignItems: 'flex-end' }, [
        fields.brand ? gradientBar() : div({}),
      ]),
    ],
  );

  const stage = div(
    {
      display: 'flex',
      width: STAGE_WIDTH,
      height: CARD_HEIGHT,
      alignItems: 'center',
      justifyContent: 'center',
      position: 'relative',
    },
    [
      picture(bag.add('product/stage-v2.svg', STAGE_SVG), {
        position: 'absolute',
        left: 0,
        top: 0,
        width: STAGE_WIDTH,
        height: CARD_HEIGHT,
      }),
      tile(fields, bag),
    ],
  );

  const node = div(
    { width: CARD_WIDTH, height: CARD_HEIGHT, display: 'flex', backgroundColor: C.bg },
    [text, stage],
    { dir },
  );
  return { node, images: bag.list() };
}

function tile(fields: TemplateFields, bag: ImageBag): Node {
  const content = fields.artwork
    ? picture(bag.add(...artworkSource(fields.artwork)), {
        width: ART,
        height: ART,
        objectFit: 'contain',
        borderRadius: 16,
      })
    : fields.brand
      ? richText(
          brandInitial(fields.brand),
          {
            fontFamily: fontStack(fields.brand, FAMILY.sans),
            fontSize: 210,
            fontWeight: 800,
            // The gradient is painted only inside the text's box, so ink outside it (a ring or
            // accent above the cap height, a descender, the side bearings) used to come out
            // blank: the box leaves room for the tallest marks and the widest overhangs.
            lineHeight: 1.6,
            padding: '0 0.1em',
            backgroundImage: MONOGRAM_GRADIENT,
            backgroundClip: 'text',
            color: 'transparent',
          },
          'ltr',
          bag,
        )
      : picture(bag.add('product/spark-v1.svg', SPARK_SVG), { width: 170, height: 170 });
  return div(
    {
      display: 'flex',
      alignItems: 'center',
      justifyContent: 'center',
      width: TILE,
      height: TILE,
      borderRadius: 32,
      backgroundColor: '#FFFFFF',
      overflow: 'hidden',
      position: 'absolute',
      left: TILE_X,
      top: TILE_Y,
    },
    [content],
  );
}

function brandPill(brand: string, bag: ImageBag): Node {
  return div(
    {
      display: 'flex',
      alignItems: 'center',
      gap: 10,
      padding: '8px 18px 8px 14px',
      borderRadius: 999,
      border: `1.5px solid ${C.pillBorder}`,
    },
    [
      div({ width: 12, height: 12, borderRadius: 6, backgroundImage: GRADIENT }),
      brandLabel(
        brand,
        { size: 17, color: C.ink, width: TEXT_WIDTH - 60, letterSpacing: 0.08, upperCase: true },
        bag,
      ),
    ],
  );
}

function gradientBar(): Node {
  return div({ width: 64, height: 6, borderRadius: 3, backgroundImage: GRADIENT });
}

export const product: TemplateDefinition = {
  name: 'product',
  description:
    'Product card: bold headline beside a gradient stage with the product photo (artwork, contained) on a white tile; brand as a pill.',
  fields: BUILTIN_FIELDS,
  sizes: ['og'],
  uses: { brand: true, artwork: true, theme: false },
  artworkSize: () => ({ width: ART, height: ART, fit: 'contain' }),
  hash: 'builtin-product-2',
  source: 'builtin:product',
  build,
};
