import type { Node } from '@takumi-rs/core';
import { FAMILY } from '../../text/fonts.js';
import { div, ImageBag, picture, svgBytes } from '../../text/nodes.js';
import { detectDirection, fontStack } from '../../text/script.js';
import { paragraph, richText } from '../../text/text.js';
import { brandInitial, brandLabel } from '../brand.js';
import { CARD_HEIGHT, CARD_WIDTH, type TemplateDefinition, type TemplateFields } from '../types.js';
import { BUILTIN_FIELDS } from './fields.js';

/**
 * "Editorial": warm paper, a serif headline anchored to the lower left, the publication's mark
 * and name on top, fine concentric arcs in the corner. Text only: artwork is not drawn.
 */
const C = {
  paper: '#F6F1E9',
  ink: '#1F1A17',
  muted: '#6B625A',
  accent: '#C2410C',
  hairline: '#E3D8C8',
};

const PAD_X = 80;
const PAD_Y = 68;
const TOP_ROW = 44;
const TITLE_WIDTH = 1000;
const SUBTITLE_WIDTH = 860;
const GAP = 22;
/** Keeps a long brand clear of the corner arcs. */
const BRAND_WIDTH = 620;
/** Height left for title and subtitle under the top row and its breathing space. */
const CONTENT_HEIGHT = CARD_HEIGHT - 2 * PAD_Y - TOP_ROW - 48;

function decor(mirrored: boolean): string {
  const cx = mirrored ? 0 : CARD_WIDTH;
  const arcs = [110, 170, 230, 290, 350]
    .map(
      (r, i) =>
        `<circle cx="${cx}" cy="0" r="${r}" fill="none" stroke="${C.accent}" stroke-opacity="${(0.34 - i * 0.06).toFixed(2)}" stroke-width="1.5"/>`,
    )
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${CARD_WIDTH}" height="${CARD_HEIGHT}">
    <circle cx="${cx}" cy="0" r="56" fill="${C.accent}" fill-opacity="0.9"/>${arcs}</svg>`;
}
const DECOR = { ltr: svgBytes(decor(false)), rtl: svgBytes(decor(true)) };

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
              [30, 2],
              [28, 2],
              [26, 2],
            ],
            width: SUBTITLE_WIDTH,
            height: 130,
            lineHeight: 1.4,
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
  const subtitleHeight = subtitle ? subtitle.height + GAP : 0;

  const title = paragraph(
    fields.title ?? '',
    {
      box: {
        face: 'serif-700',
        steps: [
          [96, 2],
          [84, 2],
          [76, 3],
          [68, 3],
          [60, 4],
          [54, 4],
          [48, 5],
          [44, 5],
          [40, 6],
        ],
        width: TITLE_WIDTH,
        height: CONTENT_HEIGHT - subtitleHeight,
        lineHeight: 1.1,
        letterSpacing: -0.012,
      },
      family: FAMILY.serif,
      weight: 700,
      color: C.ink,
      balance: true,
    },
    bag,
  );

  const top: Node = fields.brand
    ? brandRow(fields.brand, bag)
    : div({ width: 56, height: 6, borderRadius: 3, backgroundColor: C.accent });

  const node = div(
    {
      width: CARD_WIDTH,
      height: CARD_HEIGHT,
      display: 'flex',
      flexDirection: 'column',
      justifyContent: 'space-between',
      alignItems: 'flex-start',
      padding: `${PAD_Y}px ${PAD_X}px`,
      backgroundColor: C.paper,
      position: 'relative',
    },
    [
      picture(bag.add(`blog/decor-${dir}.svg`, DECOR[dir]), {
        position: 'absolute',
        left: 0,
        top: 0,
        width: CARD_WIDTH,
        height: CARD_HEIGHT,
      }),
      div({ display: 'flex', height: TOP_ROW, alignItems: 'center', position: 'relative' }, [top]),
      div({ display: 'flex', flexDirection: 'column', gap: GAP, position: 'relative' }, [
        title.node,
        ...(subtitle ? [subtitle.node] : []),
      ]),
    ],
    { dir },
  );
  return { node, images: bag.list() };
}

function brandRow(brand: string, bag: ImageBag): Node {
  return div({ display: 'flex', alignItems: 'center', gap: 14 }, [
    div(
      {
        width: 44,
        height: 44,
        borderRadius: 12,
        backgroundColor: C.accent,
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
      },
      [
        richText(
          brandInitial(brand),
          {
            fontFamily: fontStack(brand, FAMILY.sans),
            fontSize: 24,
            fontWeight: 800,
            color: '#FFFFFF',
            lineHeight: 1,
          },
          'ltr',
          bag,
        ),
      ],
    ),
    brandLabel(brand, { size: 24, color: C.ink, width: BRAND_WIDTH, letterSpacing: -0.01 }, bag),
  ]);
}

export const blog: TemplateDefinition = {
  name: 'blog',
  description:
    'Editorial article card: serif headline on warm paper with the publication (brand) on top; no artwork.',
  fields: BUILTIN_FIELDS,
  sizes: ['og'],
  uses: { brand: true, artwork: false, theme: false },
  hash: 'builtin-blog-2',
  source: 'builtin:blog',
  build,
};
