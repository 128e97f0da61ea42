import type { Node } from '@takumi-rs/core';
import { FAMILY } from '../../text/fonts.js';
import { div, ImageBag, picture } from '../../text/nodes.js';
import { detectDirection, fontStack } from '../../text/script.js';
import { paragraph, richText } from '../../text/text.js';
import { brandInitial, brandLabel } from '../brand.js';
import { DEFAULT_SIZE, SIZE_NAMES } from '../sizes.js';
import type { BuildContext, CardTheme, TemplateDefinition, TemplateFields } from '../types.js';
import { blogDecor } from './blog/decor.js';
import { type BlogLayout, blogLayout } from './blog/layout.js';
import { BUILTIN_FIELDS } from './fields.js';
import { containIn, headlineFace, logoSource, mutedTone, onColor, themeKey } from './theme.js';

/**
 * "Editorial": warm paper, a serif headline anchored to the lower left, the publication's mark
 * and name on top, fine concentric arcs in the corner. Text only: artwork is not drawn.
 */
const C = {
  paper: '#F6F1E9',
  ink: '#1F1A17',
  muted: '#6B625A',
  accent: '#C2410C',
  onAccent: '#FFFFFF',
};
type Palette = typeof C;

const SERIF = { face: 'serif-700', family: FAMILY.serif, weight: 700 } as const;
const TOP_ROW = 44;

function palette(theme: CardTheme | undefined): Palette {
  if (!theme) return C;
  return {
    paper: theme.background,
    ink: theme.text,
    muted: mutedTone(theme.text, theme.background),
    accent: theme.accent,
    onAccent: onColor(theme.accent),
  };
}

function build(fields: TemplateFields, ctx: BuildContext = { size: DEFAULT_SIZE }) {
  const { size, theme } = ctx;
  const L = blogLayout(size);
  const p = palette(theme);
  const bag = new ImageBag();
  const dir = detectDirection(fields.title ?? '');
  const topRow = Math.max(TOP_ROW, L.mark);

  const subtitle = fields.subtitle
    ? paragraph(
        fields.subtitle,
        {
          box: {
            face: 'sans-400',
            steps: L.subtitleSteps,
            width: L.subtitleWidth,
            height: L.subtitleHeight,
            lineHeight: 1.4,
          },
          family: FAMILY.sans,
          weight: 400,
          color: p.muted,
          align: dir,
          balance: true,
        },
        bag,
      )
    : undefined;
  const subtitleHeight = subtitle ? subtitle.height + L.gap : 0;
  const contentHeight = size.height - L.padTop - L.padBottom - topRow - L.breathe;

  const face = headlineFace(theme, SERIF);
  const title = paragraph(
    fields.title ?? '',
    {
      box: {
        face: face.face,
        steps: L.titleSteps,
        width: L.titleWidth,
        height: contentHeight - subtitleHeight,
        lineHeight: 1.1,
        letterSpacing: face.face === 'serif-700' ? -0.012 : -0.024,
      },
      family: face.family,
      weight: face.weight,
      color: p.ink,
      balance: true,
    },
    bag,
  );

  const node = div(
    {
      width: size.width,
      height: size.height,
      display: 'flex',
      flexDirection: 'column',
      justifyContent: 'space-between',
      alignItems: 'flex-start',
      padding:
        L.padTop === L.padBottom ? `${L.padTop}px ${L.padX}px` : `${L.padTop}px ${L.padX}px ${L.padBottom}px`,
      backgroundColor: p.paper,
      position: 'relative',
    },
    [
      picture(bag.add(...blogDecor(size, dir, p.accent, L.decorScale, themeKey(theme))), {
        position: 'absolute',
        left: 0,
        top: 0,
        width: size.width,
        height: size.height,
      }),
      div({ display: 'flex', height: topRow, alignItems: 'center', position: 'relative' }, [
        topMark(fields.brand, theme, L, p, bag),
      ]),
      div({ display: 'flex', flexDirection: 'column', gap: L.gap, position: 'relative' }, [
        title.node,
        ...(subtitle ? [subtitle.node] : []),
      ]),
    ],
    { dir },
  );
  return { node, images: bag.list() };
}

/** The brand row, the theme's logo alone, or (neither) a short accent bar. */
function topMark(
  brand: string | undefined,
  theme: CardTheme | undefined,
  L: BlogLayout,
  p: Palette,
  bag: ImageBag,
): Node {
  const logo = theme?.logo ? themeLogo(theme.logo, L, bag) : undefined;
  if (brand) return brandRow(brand, logo, L, p, bag);
  if (logo) return logo;
  return div({
    width: L.bar.width,
    height: L.bar.height,
    borderRadius: L.bar.height / 2,
    backgroundColor: p.accent,
  });
}

/** The account's logo in the mark's square, contained: a wide wordmark gets the row's height. */
function themeLogo(logo: NonNullable<CardTheme['logo']>, L: BlogLayout, bag: ImageBag): Node {
  const fit = containIn(logo, L.mark * 4, L.mark);
  return picture(bag.add(...logoSource(logo)), { width: fit.width, height: fit.height });
}

function brandRow(brand: string, logo: Node | undefined, L: BlogLayout, p: Palette, bag: ImageBag): Node {
  const mark =
    logo ??
    div(
      {
        width: L.mark,
        height: L.mark,
        borderRadius: L.markRadius,
        backgroundColor: p.accent,
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
      },
      [
        richText(
          brandInitial(brand),
          {
            fontFamily: fontStack(brand, FAMILY.sans),
            fontSize: L.initial,
            fontWeight: 800,
            color: p.onAccent,
            lineHeight: 1,
          },
          'ltr',
          bag,
        ),
      ],
    );
  return div({ display: 'flex', alignItems: 'center', gap: Math.round(L.mark * 0.32) }, [
    mark,
    brandLabel(brand, { size: L.brandSize, color: p.ink, width: L.brandWidth, letterSpacing: -0.01 }, bag),
  ]);
}

export const blog: TemplateDefinition = {
  name: 'blog',
  description:
    'Editorial article card: serif headline on warm paper with the publication (brand) on top; no artwork.',
  fields: BUILTIN_FIELDS,
  sizes: SIZE_NAMES,
  uses: { brand: true, artwork: false, theme: true },
  hash: 'builtin-blog-3',
  source: 'builtin:blog',
  build,
};
