import {
  bodyFace,
  type CardSize,
  type Child,
  defineTemplate,
  detectDirection,
  FAMILY,
  headlineFace,
  image,
  type Style,
  Text,
  type TextProps,
  textHeight,
  themeKey,
} from 'cardshot/template';
import { stageDecor } from './_product-decor.js';
import { type ProductLayout, productLayout, stageBox, textBox } from './_product-layout.js';
import { BrandPill, GradientBar, productPalette, Tile, themeMark } from './_product-parts.js';

/**
 * "Showcase": a bold sans headline on white beside a sunset-gradient stage where the product
 * photo sits on a white tile. Without a photo the tile shows the brand's monogram (or a spark),
 * so the card still reads as a product card rather than a missing image. On square and story
 * cards the stage stands above the text.
 */
const SANS = { face: 'sans-800', family: FAMILY.sans, weight: 800 } as const;
/** Subtitles and labels: Inter 400, or the theme's uploaded family. */
const TEXT = { face: 'sans-400', family: FAMILY.sans, weight: 400 } as const;

export default defineTemplate({
  description:
    'Product card: bold headline beside a gradient stage with the product photo (artwork, contained) on a white tile; brand as a pill.',
  fields: {
    title: { type: 'text', required: true, maxLength: 200, description: 'Main headline drawn on the image.' },
    subtitle: { type: 'text', maxLength: 300, description: 'Supporting text drawn under the title.' },
  },
  sizes: ['og', 'twitter', 'square', 'linkedin', 'story'],
  brand: true,
  artwork: (size) => {
    const { art } = productLayout(size);
    return { width: art, height: art, fit: 'contain' };
  },
  theme: true,
  render(fields, { size, theme }) {
    const L = productLayout(size);
    const p = productPalette(theme);
    const dir = detectDirection(fields.title);
    const textArea = textBox(size, L);
    const textWidth = L.kind === 'row' ? textArea.width - L.pad - L.gutter : textArea.width - 2 * L.pad;

    const body = bodyFace(theme, TEXT);
    const subtitle: TextProps = {
      box: {
        face: body.face,
        steps: L.subtitleSteps,
        width: textWidth - 20,
        height: L.subtitleHeight,
        lineHeight: 1.45,
      },
      family: body.family,
      weight: body.weight,
      color: p.muted,
      align: dir,
      balance: true,
    };
    // The title gets what the subtitle leaves: its fitted height, not its box's.
    const subtitleHeight = fields.subtitle ? textHeight(fields.subtitle, subtitle) + L.gap : 0;
    const face = headlineFace(theme, SANS);
    const title: TextProps = {
      box: {
        face: face.face,
        steps: L.titleSteps,
        width: textWidth,
        height: titleRoom(size, L) - subtitleHeight,
        lineHeight: face.face === 'sans-800' ? 1.06 : 1.1,
        letterSpacing: face.face === 'sans-800' ? -0.028 : -0.012,
      },
      family: face.family,
      weight: face.weight,
      color: p.ink,
      balance: true,
    };

    const top = fields.brand ? (
      <BrandPill brand={fields.brand} width={textWidth - 60} L={L} p={p} theme={theme} />
    ) : (
      (themeMark(theme, L) ?? <GradientBar L={L} p={p} />)
    );
    const words = (
      <div style={{ display: 'flex', flexDirection: 'column', gap: L.gap }}>
        <Text {...title}>{fields.title}</Text>
        {fields.subtitle ? <Text {...subtitle}>{fields.subtitle}</Text> : null}
      </div>
    );
    const box = stageBox(size, L);
    const tile = { x: (box.width - L.tile) / 2, y: (box.height - L.tile) / 2, size: L.tile };
    const key = themeKey(theme);
    const stage = (
      <div
        style={{
          display: 'flex',
          width: box.width,
          height: box.height,
          alignItems: 'center',
          justifyContent: 'center',
          position: 'relative',
        }}
      >
        <img
          alt=""
          src={image(...stageDecor({ ...box, tile }, p, size.name, key))}
          style={{ position: 'absolute', left: 0, top: 0, width: box.width, height: box.height }}
        />
        <Tile fields={fields} box={tile} L={L} p={p} theme={theme} themeKey={key} />
      </div>
    );
    const text =
      L.kind === 'row' ? (
        <RowText size={size} L={L} dir={dir} top={top} words={words}>
          {fields.brand ? <GradientBar L={L} p={p} /> : <div style={{}} />}
        </RowText>
      ) : (
        <StackText size={size} L={L} top={top} words={words} />
      );
    return (
      <div
        dir={dir}
        style={{
          width: size.width,
          height: size.height,
          display: 'flex',
          ...(L.kind === 'stack' ? { flexDirection: 'column' } : {}),
          backgroundColor: p.bg,
        }}
      >
        {L.kind === 'row' ? [text, stage] : [stage, text]}
      </div>
    );
  },
});

/** The height the title and subtitle share. */
function titleRoom(size: CardSize, L: ProductLayout): number {
  if (L.kind === 'row') return size.height - 2 * L.pad - 2 * (L.topRow + 32);
  return size.height - L.stage - L.pad - L.padBottom - (L.topRow + L.gap);
}

interface ColumnProps {
  size: CardSize;
  L: ProductLayout;
  top: Child;
  words: Child;
}

/** A row of the text column holding one item: the brand on top, the bar at the foot. */
const slot = (L: ProductLayout, alignItems: string): Style => ({
  display: 'flex',
  height: L.topRow,
  alignItems,
});

/** Wide cards: brand on top, words in the middle, the accent bar (`children`) at the foot. */
function RowText({ size, L, dir, top, words, children }: ColumnProps & { dir: string; children: Child }) {
  const { pad, gutter } = L;
  return (
    <div
      style={{
        display: 'flex',
        flexDirection: 'column',
        justifyContent: 'space-between',
        alignItems: 'flex-start',
        width: size.width - L.stage,
        height: size.height,
        padding:
          dir === 'rtl' ? `${pad}px ${pad}px ${pad}px ${gutter}px` : `${pad}px ${gutter}px ${pad}px ${pad}px`,
      }}
    >
      <div style={slot(L, 'center')}>{top}</div>
      {words}
      <div style={slot(L, 'flex-end')}>{children}</div>
    </div>
  );
}

/** Square and story: brand, then the words, under the stage. */
function StackText({ size, L, top, words }: ColumnProps) {
  return (
    <div
      style={{
        display: 'flex',
        flexDirection: 'column',
        // Centred in the space under the stage, so short copy does not leave a bare foot.
        justifyContent: 'center',
        alignItems: 'flex-start',
        gap: L.gap,
        width: size.width,
        height: size.height - L.stage,
        padding: `${L.pad}px ${L.pad}px ${L.padBottom}px`,
      }}
    >
      <div style={slot(L, 'center')}>{top}</div>
      {words}
    </div>
  );
}
