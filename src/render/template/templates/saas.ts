import type { Node } from '@takumi-rs/core';
import { FAMILY } from '../../text/fonts.js';
import { div, ImageBag, picture } from '../../text/nodes.js';
import { type Direction, detectDirection, fontStack } from '../../text/script.js';
import { paragraph, richText } from '../../text/text.js';
import { brandInitial, brandLabel } from '../brand.js';
import { DEFAULT_SIZE, SIZE_NAMES } from '../sizes.js';
import type { BuildContext, CardSize, CardTheme, TemplateDefinition, TemplateFields } from '../types.js';
import { artworkSource } from './artwork.js';
import { BUILTIN_FIELDS } from './fields.js';
import { type SaasPalette, saasBackdrop, saasPalette } from './saas/decor.js';
import { type SaasLayout, saasLayout } from './saas/layout.js';
import { containIn, headlineFace, logoSource, onColor, themeKey } from './theme.js';

/**
 * "Launch": a dark product-launch card with a fading grid and violet/cyan glows, the brand's
 * logo mark on top and a white headline. With artwork (a screenshot) the image sits in a window
 * frame that bleeds off the lower corner (beside the text on wide cards, under it on square and
 * story); without it the headline takes the full width.
 */
const SANS = { face: 'sans-800', family: FAMILY.sans, weight: 800 } as const;

/** The text column's height and its bottom padding: above the window on stacked cards. */
function columnBox(size: CardSize, L: SaasLayout, withShot: boolean): { height: number; padBottom: number } {
  if (L.kind === 'stack' && withShot) return { height: L.window.top - 9, padBottom: 44 };
  return { height: size.height, padBottom: L.padBottom };
}

function build(fields: TemplateFields, ctx: BuildContext = { size: DEFAULT_SIZE }) {
  const { size, theme } = ctx;
  const L = saasLayout(size);
  const c = saasPalette(theme);
  const bag = new ImageBag();
  const dir = detectDirection(fields.title ?? '');
  const withShot = fields.artwork !== undefined;
  const textWidth = withShot ? L.shotTextWidth : L.plainTextWidth;
  const column = columnBox(size, L, withShot);

  const subtitle = fields.subtitle
    ? paragraph(
        fields.subtitle,
        {
          box: {
            face: 'sans-400',
            steps: L.subtitleSteps,
            width: textWidth - 20,
            height: L.subtitleHeight,
            lineHeight: 1.45,
          },
          family: FAMILY.sans,
          weight: 400,
          color: c.muted,
          align: dir,
          balance: true,
        },
        bag,
      )
    : undefined;
  const reserved =
    L.padTop +
    column.padBottom +
    (fields.brand ? L.topRow + 56 : 11 + L.gap) +
    (subtitle ? subtitle.height + L.gap : 0);
  const face = headlineFace(theme, SANS);
  const title = paragraph(
    fields.title ?? '',
    {
      box: {
        face: face.face,
        steps: withShot ? L.shotSteps : L.plainSteps,
        width: textWidth,
        height: column.height - reserved,
        lineHeight: face.face === 'sans-800' ? 1.08 : 1.1,
        letterSpacing: face.face === 'sans-800' ? -0.03 : -0.012,
      },
      family: face.family,
      weight: face.weight,
      color: c.ink,
      balance: true,
    },
    bag,
  );

  const logoGradient = `linear-gradient(135deg, ${c.violet}, ${c.cyan})`;
  const textColumn = div(
    {
      display: 'flex',
      flexDirection: 'column',
      justifyContent: fields.brand ? 'space-between' : 'center',
      alignItems: 'flex-start',
      width: size.width,
      height: column.height,
      padding:
        L.padTop === L.pad && column.padBottom === L.pad
          ? L.pad
          : `${L.padTop}px ${L.pad}px ${column.padBottom}px`,
      position: 'relative',
    },
    [
      ...(fields.brand ? [brandRow(fields.brand, size, L, c, theme, bag)] : []),
      div({ display: 'flex', flexDirection: 'column', gap: L.gap }, [
        // Without a brand, the theme's logo or an accent bar in the mark's gradient tops the text.
        ...(fields.brand ? [] : [plainMark(theme, L, logoGradient, bag)]),
        title.node,
        ...(subtitle ? [subtitle.node] : []),
      ]),
    ],
  );

  const variant = withShot ? dir : 'plain';
  const layers: Node[] = [
    picture(bag.add(...saasBackdrop(size, L, variant, c, themeKey(theme))), {
      position: 'absolute',
      left: 0,
      top: 0,
      width: size.width,
      height: size.height,
    }),
  ];
  if (fields.artwork) layers.push(screenshot(bag.add(...artworkSource(fields.artwork)), dir, L, c));
  layers.push(textColumn);

  const node = div(
    {
      width: size.width,
      height: size.height,
      display: 'flex',
      position: 'relative',
      backgroundColor: c.bg,
      overflow: 'hidden',
    },
    layers,
    { dir },
  );
  return { node, images: bag.list() };
}

function plainMark(theme: CardTheme | undefined, L: SaasLayout, gradient: string, bag: ImageBag): Node {
  if (theme?.logo)
    return picture(bag.add(...logoSource(theme.logo)), containIn(theme.logo, L.topRow * 4, L.topRow));
  return div({ width: 56, height: 5, borderRadius: 3, backgroundImage: gradient, marginBottom: 6 });
}

/** A browser-like window that bleeds off the lower outer corner (mirrored for RTL titles). */
function screenshot(src: string, dir: Direction, L: SaasLayout, c: SaasPalette): Node {
  const dot = (color: string) => div({ width: 11, height: 11, borderRadius: 6, backgroundColor: color });
  const win = L.window;
  return div(
    {
      position: 'absolute',
      top: win.top,
      [dir === 'rtl' ? 'left' : 'right']: -win.outset,
      width: win.width,
      height: win.height,
      display: 'flex',
      flexDirection: 'column',
      borderRadius: 14,
      border: `1px solid ${c.frame}`,
      backgroundColor: c.window,
      overflow: 'hidden',
    },
    [
      div(
        {
          display: 'flex',
          alignItems: 'center',
          gap: 8,
          height: L.windowBar,
          paddingLeft: 16,
          borderBottom: `1px solid ${c.frame}`,
        },
        [dot('#FF5F57'), dot('#FEBC2E'), dot('#28C840')],
      ),
      picture(src, { width: L.shot.width, height: L.shot.height, objectFit: 'cover' }),
    ],
  );
}

function brandRow(
  brand: string,
  size: CardSize,
  L: SaasLayout,
  c: SaasPalette,
  theme: CardTheme | undefined,
  bag: ImageBag,
): Node {
  const mark = theme?.logo
    ? picture(bag.add(...logoSource(theme.logo)), containIn(theme.logo, L.topRow * 4, L.topRow))
    : div(
        {
          width: L.topRow,
          height: L.topRow,
          borderRadius: L.mark.radius,
          backgroundImage: `linear-gradient(135deg, ${c.violet}, ${c.cyan})`,
          display: 'flex',
          alignItems: 'center',
          justifyContent: 'center',
        },
        [
          richText(
            brandInitial(brand),
            {
              fontFamily: fontStack(brand, FAMILY.sans),
              fontSize: L.mark.initial,
              fontWeight: 800,
              color: theme ? onColor(c.violet) : '#FFFFFF',
              lineHeight: 1,
            },
            'ltr',
            bag,
          ),
        ],
      );
  const labelWidth = L.kind === 'row' ? 900 : size.width - 2 * L.pad - L.topRow - 14;
  return div({ display: 'flex', alignItems: 'center', gap: 14, height: L.topRow }, [
    mark,
    brandLabel(brand, { size: L.brandSize, color: c.ink, width: labelWidth, letterSpacing: -0.01 }, bag),
  ]);
}

export const saas: TemplateDefinition = {
  name: 'saas',
  description:
    'Dark launch card: brand logo mark, large headline, and the artwork as a screenshot in a window frame (cover); text-only without it.',
  fields: BUILTIN_FIELDS,
  sizes: SIZE_NAMES,
  uses: { brand: true, artwork: true, theme: true },
  artworkSize: (size) => {
    const { shot } = saasLayout(size);
    return { width: shot.width, height: shot.height, fit: 'cover' };
  },
  hash: 'builtin-saas-3',
  source: 'builtin:saas',
  build,
};
