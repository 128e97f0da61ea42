import {
  artworkSource,
  bag,
  bodyFace,
  brandInitial,
  brandLabel,
  type CardSize,
  type CardTheme,
  containIn,
  type Direction,
  defineTemplate,
  detectDirection,
  FAMILY,
  fontStack,
  headlineFace,
  image,
  onColor,
  richText,
  Text,
  type TextProps,
  textHeight,
  themeKey,
  themeLogo,
} from 'cardshot/template';
import { type SaasPalette, saasBackdrop, saasPalette } from './_saas-decor.js';
import { type SaasLayout, saasLayout } from './_saas-layout.js';

/**
 * "Launch": a dark product-launch card with a fading grid and violet/cyan glows, the brand's
 * logo mark on top and a white headline. With artwork (a screenshot) the image sits in a window
 * frame that bleeds off the lower corner (beside the text on wide cards, under it on square and
 * story); without it the headline takes the full width.
 */
const SANS = { face: 'sans-800', family: FAMILY.sans, weight: 800 } as const;
/** Subtitles and labels: Inter 400, or the theme's uploaded family. */
const TEXT = { face: 'sans-400', family: FAMILY.sans, weight: 400 } as const;

/** The text column's height and its bottom padding: above the window on stacked cards. */
function columnBox(size: CardSize, L: SaasLayout, withShot: boolean): { height: number; padBottom: number } {
  if (L.kind === 'stack' && withShot) return { height: L.window.top - 9, padBottom: 44 };
  return { height: size.height, padBottom: L.padBottom };
}

export default defineTemplate({
  description:
    'Dark launch card: brand logo mark, large headline, and the artwork as a screenshot in a window frame (cover); text-only without it.',
  fields: {
    title: { type: 'text', required: true, maxLength: 200, description: 'Main headline drawn on the image.' },
    subtitle: { type: 'text', maxLength: 300, description: 'Supporting text drawn under the title.' },
  },
  sizes: ['og', 'twitter', 'square', 'linkedin', 'story'],
  brand: true,
  artwork: (size) => {
    const { shot } = saasLayout(size);
    return { width: shot.width, height: shot.height, fit: 'cover' };
  },
  theme: true,
  render(fields, { size, theme }) {
    const L = saasLayout(size);
    const c = saasPalette(theme);
    const dir = detectDirection(fields.title);
    const withShot = fields.artwork !== undefined;
    const textWidth = withShot ? L.shotTextWidth : L.plainTextWidth;
    const column = columnBox(size, L, withShot);

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
      color: c.muted,
      align: dir,
      balance: true,
    };
    // The title gets what the brand row and the subtitle leave: the subtitle's fitted height.
    const reserved =
      L.padTop +
      column.padBottom +
      (fields.brand ? L.topRow + 56 : 11 + L.gap) +
      (fields.subtitle ? textHeight(fields.subtitle, subtitle) + L.gap : 0);
    const face = headlineFace(theme, SANS);
    const title: TextProps = {
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
    };

    const variant = withShot ? dir : 'plain';
    return (
      <div
        dir={dir}
        style={{
          width: size.width,
          height: size.height,
          display: 'flex',
          position: 'relative',
          backgroundColor: c.bg,
          overflow: 'hidden',
        }}
      >
        <img
          alt=""
          src={image(...saasBackdrop(size, L, variant, c, themeKey(theme)))}
          style={{ position: 'absolute', left: 0, top: 0, width: size.width, height: size.height }}
        />
        {fields.artwork ? (
          <Screenshot src={image(...artworkSource(fields.artwork))} dir={dir} L={L} c={c} />
        ) : null}
        <div
          style={{
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
          }}
        >
          {fields.brand ? <BrandRow brand={fields.brand} size={size} L={L} c={c} theme={theme} /> : null}
          <div style={{ display: 'flex', flexDirection: 'column', gap: L.gap }}>
            {/* Without a brand, the theme's logo or an accent bar in the mark's gradient tops the text. */}
            {fields.brand ? null : <PlainMark theme={theme} L={L} c={c} />}
            <Text {...title}>{fields.title}</Text>
            {fields.subtitle ? <Text {...subtitle}>{fields.subtitle}</Text> : null}
          </div>
        </div>
      </div>
    );
  },
});

const markGradient = (c: SaasPalette) => `linear-gradient(135deg, ${c.violet}, ${c.cyan})`;

function PlainMark({ theme, L, c }: { theme: CardTheme | undefined; L: SaasLayout; c: SaasPalette }) {
  if (theme?.logo) {
    return <img alt="" src={themeLogo(theme)!} style={containIn(theme.logo, L.topRow * 4, L.topRow)} />;
  }
  return (
    <div
      style={{ width: 56, height: 5, borderRadius: 3, backgroundImage: markGradient(c), marginBottom: 6 }}
    />
  );
}

const Dot = ({ color }: { color: string }) => (
  <div style={{ width: 11, height: 11, borderRadius: 6, backgroundColor: color }} />
);

/** A browser-like window that bleeds off the lower outer corner (mirrored for RTL titles). */
function Screenshot({ src, dir, L, c }: { src: string; dir: Direction; L: SaasLayout; c: SaasPalette }) {
  const win = L.window;
  return (
    <div
      style={{
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
      }}
    >
      <div
        style={{
          display: 'flex',
          alignItems: 'center',
          gap: 8,
          height: L.windowBar,
          paddingLeft: 16,
          borderBottom: `1px solid ${c.frame}`,
        }}
      >
        <Dot color="#FF5F57" />
        <Dot color="#FEBC2E" />
        <Dot color="#28C840" />
      </div>
      <img alt="" src={src} style={{ width: L.shot.width, height: L.shot.height, objectFit: 'cover' }} />
    </div>
  );
}

interface BrandRowProps {
  brand: string;
  size: CardSize;
  L: SaasLayout;
  c: SaasPalette;
  theme: CardTheme | undefined;
}

function BrandRow({ brand, size, L, c, theme }: BrandRowProps) {
  const labelWidth = L.kind === 'row' ? 900 : size.width - 2 * L.pad - L.topRow - 14;
  return (
    <div style={{ display: 'flex', alignItems: 'center', gap: 14, height: L.topRow }}>
      {theme?.logo ? (
        <img alt="" src={themeLogo(theme)!} style={containIn(theme.logo, L.topRow * 4, L.topRow)} />
      ) : (
        <LogoMark brand={brand} L={L} c={c} themed={theme !== undefined} />
      )}
      {brandLabel(brand, { size: L.brandSize, color: c.ink, width: labelWidth, letterSpacing: -0.01 }, bag())}
    </div>
  );
}

/** The brand's initial on the violet-to-cyan square. */
function LogoMark({
  brand,
  L,
  c,
  themed,
}: {
  brand: string;
  L: SaasLayout;
  c: SaasPalette;
  themed: boolean;
}) {
  return (
    <div
      style={{
        width: L.topRow,
        height: L.topRow,
        borderRadius: L.mark.radius,
        backgroundImage: markGradient(c),
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
      }}
    >
      {richText(
        brandInitial(brand),
        {
          fontFamily: fontStack(brand, FAMILY.sans),
          fontSize: L.mark.initial,
          fontWeight: 800,
          color: themed ? onColor(c.violet) : '#FFFFFF',
          lineHeight: 1,
        },
        'ltr',
        bag(),
      )}
    </div>
  );
}
