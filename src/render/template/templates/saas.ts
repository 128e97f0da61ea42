import type { Node } from '@takumi-rs/core';
import { FAMILY } from '../../text/fonts.js';
import { div, ImageBag, picture } from '../../text/nodes.js';
import { type Direction, detectDirection, fontStack } from '../../text/script.js';
import { paragraph, richText } from '../../text/text.js';
import { brandInitial, brandLabel } from '../brand.js';
import { CARD_HEIGHT, CARD_WIDTH, type TemplateDefinition, type TemplateFields } from '../types.js';
import { artworkSource } from './artwork.js';
import { BUILTIN_FIELDS } from './fields.js';
import { SAAS_COLORS as C, SAAS_BACKDROPS, WINDOW } from './saas-backdrop.js';

/**
 * "Launch": a dark product-launch card with a fading grid and violet/cyan glows, the brand's
 * logo mark on top and a white headline. With artwork (a screenshot) the image sits in a window
 * frame that bleeds off the lower corner; without it the headline takes the full width.
 */
const PAD = 72;
const TOP_ROW = 44;
const SHOT = { width: 640, height: 400 };
const WINDOW_BAR = 34;
const GAP = 22;
const LOGO_GRADIENT = `linear-gradient(135deg, ${C.violet}, ${C.cyan})`;

function build(fields: TemplateFields) {
  const bag = new ImageBag();
  const dir = detectDirection(fields.title ?? '');
  const withShot = fields.artwork !== undefined;
  const textWidth = withShot ? CARD_WIDTH - SHOT.width - PAD - 28 : 940;

  const subtitle = fields.subtitle
    ? paragraph(
        fields.subtitle,
        {
          box: {
            face: 'sans-400',
            steps: [
              [28, 2],
              [26, 3],
              [24, 3],
            ],
            width: textWidth - 20,
            height: 110,
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
  const reserved =
    2 * PAD + (fields.brand ? TOP_ROW + 56 : 11 + GAP) + (subtitle ? subtitle.height + GAP : 0);
  const title = paragraph(
    fields.title ?? '',
    {
      box: {
        face: 'sans-800',
        steps: withShot
          ? [
              [64, 2],
              [56, 3],
              [50, 3],
              [44, 4],
              [40, 5],
              [36, 6],
              [32, 7],
            ]
          : [
              [84, 2],
              [72, 2],
              [64, 3],
              [56, 3],
              [50, 4],
              [44, 5],
              [40, 6],
              [36, 7],
            ],
        width: textWidth,
        height: CARD_HEIGHT - reserved,
        lineHeight: 1.08,
        letterSpacing: -0.03,
      },
      family: FAMILY.sans,
      weight: 800,
      color: C.ink,
      balance: true,
    },
    bag,
  );

  const column = div(
    {
      display: 'flex',
      flexDirection: 'column',
      justifyContent: fields.brand ? 'space-between' : 'center',
      alignItems: 'flex-start',
      width: CARD_WIDTH,
      height: CARD_HEIGHT,
      padding: PAD,
      position: 'relative',
    },
    [
      ...(fields.brand ? [brandRow(fields.brand, bag)] : []),
      div({ display: 'flex', flexDirection: 'column', gap: GAP }, [
        // Without a brand, an accent bar in the logo's gradient marks the card as designed.
        ...(fields.brand
          ? []
          : [
              div({ width: 56, height: 5, borderRadius: 3, backgroundImage: LOGO_GRADIENT, marginBottom: 6 }),
            ]),
        title.node,
        ...(subtitle ? [subtitle.node] : []),
      ]),
    ],
  );

  const variant = withShot ? dir : 'plain';
  const layers: Node[] = [
    picture(bag.add(`saas/backdrop-${variant}-v1.svg`, SAAS_BACKDROPS[variant]), {
      position: 'absolute',
      left: 0,
      top: 0,
      width: CARD_WIDTH,
      height: CARD_HEIGHT,
    }),
  ];
  if (fields.artwork) layers.push(screenshot(bag.add(...artworkSource(fields.artwork)), dir));
  layers.push(column);

  const node = div(
    {
      width: CARD_WIDTH,
      height: CARD_HEIGHT,
      display: 'flex',
      position: 'relative',
      backgroundColor: C.bg,
      overflow: 'hidden',
    },
    layers,
    { dir },
  );
  return { node, images: bag.list() };
}

/** A browser-like window that bleeds off the lower outer corner (mirrored for RTL titles). */
function screenshot(src: string, dir: Direction): Node {
  const dot = (color: string) => div({ width: 11, height: 11, borderRadius: 6, backgroundColor: color });
  return div(
    {
      position: 'absolute',
      top: WINDOW.top,
      [dir === 'rtl' ? 'left' : 'right']: -WINDOW.outset,
      width: WINDOW.width,
      height: WINDOW.height,
      display: 'flex',
      flexDirection: 'column',
      borderRadius: 14,
      border: `1px solid ${C.frame}`,
      backgroundColor: C.window,
      overflow: 'hidden',
    },
    [
      div(
        {
          display: 'flex',
          alignItems: 'center',
          gap: 8,
          height: WINDOW_BAR,
          paddingLeft: 16,
          borderBottom: `1px solid ${C.frame}`,
        },
        [dot('#FF5F57'), dot('#FEBC2E'), dot('#28C840')],
      ),
      picture(src, { width: SHOT.width, height: SHOT.height, objectFit: 'cover' }),
    ],
  );
}

function brandRow(brand: string, bag: ImageBag): Node {
  return div({ display: 'flex', alignItems: 'center', gap: 14, height: TOP_ROW }, [
    div(
      {
        width: TOP_ROW,
        height: TOP_ROW,
        borderRadius: 11,
        backgroundImage: LOGO_GRADIENT,
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
      },
      [
        richText(
          brandInitial(brand),
          {
            fontFamily: fontStack(brand, FAMILY.sans),
            fontSize: 23,
            fontWeight: 800,
            color: '#FFFFFF',
            lineHeight: 1,
          },
          'ltr',
          bag,
        ),
      ],
    ),
    brandLabel(brand, { size: 26, color: C.ink, width: 900, letterSpacing: -0.01 }, bag),
  ]);
}

export const saas: TemplateDefinition = {
  name: 'saas',
  description:
    'Dark launch card: brand logo mark, large headline, and the artwork as a screenshot in a window frame (cover); text-only without it.',
  fields: BUILTIN_FIELDS,
  sizes: ['og'],
  uses: { brand: true, artwork: true, theme: false },
  artworkSize: () => ({ width: SHOT.width, height: SHOT.height, fit: 'cover' }),
  hash: 'builtin-saas-2',
  source: 'builtin:saas',
  build,
};
