import {
  bag,
  bodyFace,
  brandInitial,
  brandLabel,
  type CardTheme,
  type Child,
  containIn,
  defineTemplate,
  detectDirection,
  FAMILY,
  fontStack,
  headlineFace,
  image,
  mutedTone,
  onColor,
  richText,
  Text,
  type TextProps,
  textHeight,
  themeKey,
  themeLogo,
} from 'cardshot/template';
import { blogDecor } from './_blog-decor.js';
import { type BlogLayout, blogLayout } from './_blog-layout.js';

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
/** Subtitles and labels: Inter 400, or the theme's uploaded family. */
const TEXT = { face: 'sans-400', family: FAMILY.sans, weight: 400 } as const;
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

export default defineTemplate({
  description:
    'Editorial article card: serif headline on warm paper with the publication (brand) on top; no artwork.',
  fields: {
    title: { type: 'text', required: true, maxLength: 200, description: 'Main headline drawn on the image.' },
    subtitle: { type: 'text', maxLength: 300, description: 'Supporting text drawn under the title.' },
  },
  sizes: ['og', 'twitter', 'square', 'linkedin', 'story'],
  brand: true,
  theme: true,
  render(fields, { size, theme }) {
    const L = blogLayout(size);
    const p = palette(theme);
    const dir = detectDirection(fields.title);
    const topRow = Math.max(TOP_ROW, L.mark);

    const body = bodyFace(theme, TEXT);
    const subtitle: TextProps = {
      box: {
        face: body.face,
        steps: L.subtitleSteps,
        width: L.subtitleWidth,
        height: L.subtitleHeight,
        lineHeight: 1.4,
      },
      family: body.family,
      weight: body.weight,
      color: p.muted,
      align: dir,
      balance: true,
    };
    // The title gets what the subtitle leaves: its fitted height, not its box's.
    const subtitleHeight = fields.subtitle ? textHeight(fields.subtitle, subtitle) + L.gap : 0;
    const contentHeight = size.height - L.padTop - L.padBottom - topRow - L.breathe;

    const face = headlineFace(theme, SERIF);
    const title: TextProps = {
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
    };

    const padding =
      L.padTop === L.padBottom ? `${L.padTop}px ${L.padX}px` : `${L.padTop}px ${L.padX}px ${L.padBottom}px`;
    return (
      <div
        dir={dir}
        style={{
          width: size.width,
          height: size.height,
          display: 'flex',
          flexDirection: 'column',
          justifyContent: 'space-between',
          alignItems: 'flex-start',
          padding,
          backgroundColor: p.paper,
          position: 'relative',
        }}
      >
        <img
          alt=""
          src={image(...blogDecor(size, dir, p.accent, L.decorScale, themeKey(theme)))}
          style={{ position: 'absolute', left: 0, top: 0, width: size.width, height: size.height }}
        />
        <div style={{ display: 'flex', height: topRow, alignItems: 'center', position: 'relative' }}>
          <TopMark brand={fields.brand} theme={theme} L={L} p={p} />
        </div>
        <div style={{ display: 'flex', flexDirection: 'column', gap: L.gap, position: 'relative' }}>
          <Text {...title}>{fields.title}</Text>
          {fields.subtitle ? <Text {...subtitle}>{fields.subtitle}</Text> : null}
        </div>
      </div>
    );
  },
});

interface MarkProps {
  brand: string | undefined;
  theme: CardTheme | undefined;
  L: BlogLayout;
  p: Palette;
}

/** The brand row, the theme's logo alone, or (neither) a short accent bar. */
function TopMark({ brand, theme, L, p }: MarkProps) {
  const logo = theme?.logo ? <ThemeLogo logo={theme.logo} theme={theme} L={L} /> : undefined;
  if (brand) return <BrandRow brand={brand} logo={logo} L={L} p={p} />;
  if (logo) return logo;
  return (
    <div
      style={{
        width: L.bar.width,
        height: L.bar.height,
        borderRadius: L.bar.height / 2,
        backgroundColor: p.accent,
      }}
    />
  );
}

/** The account's logo in the mark's square, contained: a wide wordmark gets the row's height. */
function ThemeLogo(props: { logo: NonNullable<CardTheme['logo']>; theme: CardTheme; L: BlogLayout }) {
  const fit = containIn(props.logo, props.L.mark * 4, props.L.mark);
  return <img alt="" src={themeLogo(props.theme)!} style={{ width: fit.width, height: fit.height }} />;
}

function BrandRow({ brand, logo, L, p }: { brand: string; logo: Child; L: BlogLayout; p: Palette }) {
  return (
    <div style={{ display: 'flex', alignItems: 'center', gap: Math.round(L.mark * 0.32) }}>
      {logo ?? <Monogram brand={brand} L={L} p={p} />}
      {brandLabel(
        brand,
        { size: L.brandSize, color: p.ink, width: L.brandWidth, letterSpacing: -0.01 },
        bag(),
      )}
    </div>
  );
}

/** The brand's initial on an accent square, where the theme gives no logo. */
function Monogram({ brand, L, p }: { brand: string; L: BlogLayout; p: Palette }) {
  return (
    <div
      style={{
        width: L.mark,
        height: L.mark,
        borderRadius: L.markRadius,
        backgroundColor: p.accent,
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
      }}
    >
      {richText(
        brandInitial(brand),
        {
          fontFamily: fontStack(brand, FAMILY.sans),
          fontSize: L.initial,
          fontWeight: 800,
          color: p.onAccent,
          lineHeight: 1,
        },
        'ltr',
        bag(),
      )}
    </div>
  );
}
