import type { Node } from '@takumi-rs/core';
import { FAMILY } from '../../text/fonts.js';
import { div, ImageBag, picture } from '../../text/nodes.js';
import { detectDirection } from '../../text/script.js';
import { paragraph } from '../../text/text.js';
import { DEFAULT_SIZE, SIZE_NAMES } from '../sizes.js';
import type { BuildContext, CardSize, TemplateDefinition, TemplateFields } from '../types.js';
import { BUILTIN_FIELDS } from './fields.js';
import { stageDecor } from './product/decor.js';
import { type ProductLayout, productLayout, stageBox, textBox } from './product/layout.js';
import {
  brandPill,
  gradientBar,
  type ProductPalette,
  productPalette,
  themeMark,
  tile,
} from './product/parts.js';
import { headlineFace, themeKey } from './theme.js';

/**
 * "Showcase": a bold sans headline on white beside a sunset-gradient stage where the product
 * photo sits on a white tile. Without a photo the tile shows the brand's monogram (or a spark),
 * so the card still reads as a product card rather than a missing image. On square and story
 * cards the stage stands above the text.
 */
const SANS = { face: 'sans-800', family: FAMILY.sans, weight: 800 } as const;

function build(fields: TemplateFields, ctx: BuildContext = { size: DEFAULT_SIZE }) {
  const { size, theme } = ctx;
  const L = productLayout(size);
  const p = productPalette(theme);
  const bag = new ImageBag();
  const dir = detectDirection(fields.title ?? '');
  const textArea = textBox(size, L);
  const textWidth = L.kind === 'row' ? textArea.width - L.pad - L.gutter : textArea.width - 2 * L.pad;

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
          color: p.muted,
          align: dir,
          balance: true,
        },
        bag,
      )
    : undefined;
  const face = headlineFace(theme, SANS);
  const title = paragraph(
    fields.title ?? '',
    {
      box: {
        face: face.face,
        steps: L.titleSteps,
        width: textWidth,
        height: titleRoom(size, L) - (subtitle ? subtitle.height + L.gap : 0),
        lineHeight: face.face === 'sans-800' ? 1.06 : 1.1,
        letterSpacing: face.face === 'sans-800' ? -0.028 : -0.012,
      },
      family: face.family,
      weight: face.weight,
      color: p.ink,
      balance: true,
    },
    bag,
  );

  const top = fields.brand
    ? brandPill(fields.brand, textWidth - 60, L, p, theme, bag)
    : (themeMark(theme, L, bag) ?? gradientBar(L, p));
  const words = div({ display: 'flex', flexDirection: 'column', gap: L.gap }, [
    title.node,
    ...(subtitle ? [subtitle.node] : []),
  ]);
  const text =
    L.kind === 'row'
      ? rowText(size, L, dir, top, words, fields.brand ? gradientBar(L, p) : undefined)
      : stackText(size, L, top, words);

  const stage = stageNode(size, L, p, fields, themeKey(theme), bag, ctx);
  const node = div(
    {
      width: size.width,
      height: size.height,
      display: 'flex',
      ...(L.kind === 'stack' ? { flexDirection: 'column' } : {}),
      backgroundColor: p.bg,
    },
    L.kind === 'row' ? [text, stage] : [stage, text],
    { dir },
  );
  return { node, images: bag.list() };
}

/** The height the title and subtitle share. */
function titleRoom(size: CardSize, L: ProductLayout): number {
  if (L.kind === 'row') return size.height - 2 * L.pad - 2 * (L.topRow + 32);
  return size.height - L.stage - L.pad - L.padBottom - (L.topRow + L.gap);
}

/** Wide cards: brand on top, words in the middle, the accent bar at the foot. */
function rowText(
  size: CardSize,
  L: ProductLayout,
  dir: string,
  top: Node,
  words: Node,
  foot: Node | undefined,
): Node {
  const { pad, gutter } = L;
  return div(
    {
      display: 'flex',
      flexDirection: 'column',
      justifyContent: 'space-between',
      alignItems: 'flex-start',
      width: size.width - L.stage,
      height: size.height,
      padding:
        dir === 'rtl' ? `${pad}px ${pad}px ${pad}px ${gutter}px` : `${pad}px ${gutter}px ${pad}px ${pad}px`,
    },
    [
      div({ display: 'flex', height: L.topRow, alignItems: 'center' }, [top]),
      words,
      div({ display: 'flex', height: L.topRow, alignItems: 'flex-end' }, [foot ?? div({})]),
    ],
  );
}

/** Square and story: brand, then the words, under the stage. */
function stackText(size: CardSize, L: ProductLayout, top: Node, words: Node): Node {
  return div(
    {
      display: 'flex',
      flexDirection: 'column',
      // Centred in the space under the stage, so short copy does not leave a bare foot.
      justifyContent: 'center',
      alignItems: 'flex-start',
      gap: L.gap,
      width: size.width,
      height: size.height - L.stage,
      padding: `${L.pad}px ${L.pad}px ${L.padBottom}px`,
    },
    [div({ display: 'flex', height: L.topRow, alignItems: 'center' }, [top]), words],
  );
}

function stageNode(
  size: CardSize,
  L: ProductLayout,
  p: ProductPalette,
  fields: TemplateFields,
  key: string,
  bag: ImageBag,
  ctx: BuildContext,
): Node {
  const box = stageBox(size, L);
  const tileBox = { x: (box.width - L.tile) / 2, y: (box.height - L.tile) / 2, size: L.tile };
  return div(
    {
      display: 'flex',
      width: box.width,
      height: box.height,
      alignItems: 'center',
      justifyContent: 'center',
      position: 'relative',
    },
    [
      picture(bag.add(...stageDecor({ ...box, tile: tileBox }, p, size.name, key)), {
        position: 'absolute',
        left: 0,
        top: 0,
        width: box.width,
        height: box.height,
      }),
      tile(fields, tileBox, L, p, ctx.theme, key, bag),
    ],
  );
}

export const product: TemplateDefinition = {
  name: 'product',
  description:
    'Product card: bold headline beside a gradient stage with the product photo (artwork, contained) on a white tile; brand as a pill.',
  fields: BUILTIN_FIELDS,
  sizes: SIZE_NAMES,
  uses: { brand: true, artwork: true, theme: true },
  artworkSize: (size) => {
    const { art } = productLayout(size);
    return { width: art, height: art, fit: 'contain' };
  },
  hash: 'builtin-product-3',
  source: 'builtin:product',
  build,
};
