import {
  type Artwork,
  artworkSource,
  bag,
  brandInitial,
  brandLabel,
  type CardTheme,
  type Child,
  containIn,
  FAMILY,
  fontStack,
  image,
  mix,
  mutedTone,
  richText,
  themeLogo,
} from 'cardshot/template';
import { type StageColors, sparkDecor } from './_product-decor.js';
import type { ProductLayout } from './_product-layout.js';

export interface ProductPalette extends StageColors {
  bg: string;
  ink: string;
  muted: string;
  pillBorder: string;
  /** The tile behind the photo. */
  tile: string;
}

const BASE: ProductPalette = {
  bg: '#FFFFFF',
  ink: '#0C0A09',
  muted: '#57534E',
  pillBorder: '#E7E5E4',
  from: '#FFB457',
  via: '#FF6B6B',
  to: '#C050F0',
  shadow: '#4C1D95',
  tile: '#FFFFFF',
};

/**
 * The template's sunset palette, or one drawn from a theme: the stage sweeps from a light tint of
 * the accent through the accent to a deep shade, so any brand colour gives the same lit-stage look.
 */
export function productPalette(theme: CardTheme | undefined): ProductPalette {
  if (!theme) return BASE;
  return {
    bg: theme.background,
    ink: theme.text,
    muted: mutedTone(theme.text, theme.background),
    pillBorder: mix(theme.background, theme.text, 0.16),
    from: mix(theme.accent, '#FFFFFF', 0.4),
    via: theme.accent,
    to: mix(theme.accent, '#000000', 0.35),
    shadow: mix(theme.accent, '#000000', 0.6),
    tile: '#FFFFFF',
  };
}

const gradient = (p: ProductPalette) => `linear-gradient(135deg, ${p.from}, ${p.via} 55%, ${p.to})`;

interface TileProps {
  fields: { brand?: string; artwork?: Artwork };
  box: { x: number; y: number; size: number };
  L: ProductLayout;
  p: ProductPalette;
  theme: CardTheme | undefined;
  /** The theme's cache key (`themeKey`), for the spark's colours. */
  themeKey: string;
}

/** The tile: the photo, else the theme's logo, else the brand's monogram, else a spark. */
export function Tile(props: TileProps) {
  const { box, L, p } = props;
  return (
    <div
      style={{
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
        width: box.size,
        height: box.size,
        borderRadius: L.tileRadius,
        backgroundColor: p.tile,
        overflow: 'hidden',
        position: 'absolute',
        left: box.x,
        top: box.y,
      }}
    >
      {tileContent(props)}
    </div>
  );
}

function tileContent({ fields, L, p, theme, themeKey }: TileProps): Child {
  if (fields.artwork) {
    return (
      <img
        alt=""
        src={image(...artworkSource(fields.artwork))}
        style={{ width: L.art, height: L.art, objectFit: 'contain', borderRadius: 16 }}
      />
    );
  }
  if (theme?.logo) {
    return <img alt="" src={themeLogo(theme)!} style={containIn(theme.logo, L.tile * 0.6, L.tile * 0.6)} />;
  }
  if (fields.brand) {
    return richText(
      brandInitial(fields.brand),
      {
        fontFamily: fontStack(fields.brand, FAMILY.sans),
        fontSize: L.monogram,
        fontWeight: 800,
        // The gradient is painted only inside the text's box, so ink outside it (a ring or
        // accent above the cap height, a descender, the side bearings) used to come out
        // blank: the box leaves room for the tallest marks and the widest overhangs.
        lineHeight: 1.6,
        padding: '0 0.1em',
        backgroundImage: `linear-gradient(135deg, ${p.from} 25%, ${p.via} 55%, ${p.to} 78%)`,
        backgroundClip: 'text',
        color: 'transparent',
      },
      'ltr',
      bag(),
    );
  }
  return <img alt="" src={image(...sparkDecor(p, themeKey))} style={{ width: L.spark, height: L.spark }} />;
}

interface PillProps {
  brand: string;
  /** The widest the brand's name may grow. */
  width: number;
  L: ProductLayout;
  p: ProductPalette;
  theme: CardTheme | undefined;
}

/** The brand in capitals in a hairline pill, led by a gradient dot (or the theme's logo). */
export function BrandPill({ brand, width, L, p, theme }: PillProps) {
  const k = L.pill.font / 17;
  const lead = theme?.logo ? (
    <img alt="" src={themeLogo(theme)!} style={containIn(theme.logo, L.pill.font * 4, L.pill.font * 1.3)} />
  ) : (
    <div
      style={{
        width: L.pill.dot,
        height: L.pill.dot,
        borderRadius: L.pill.dot / 2,
        backgroundImage: gradient(p),
      }}
    />
  );
  return (
    <div
      style={{
        display: 'flex',
        alignItems: 'center',
        gap: Math.round(10 * k),
        padding: `${Math.round(8 * k)}px ${Math.round(18 * k)}px ${Math.round(8 * k)}px ${Math.round(14 * k)}px`,
        borderRadius: 999,
        border: `1.5px solid ${p.pillBorder}`,
      }}
    >
      {lead}
      {brandLabel(
        brand,
        { size: L.pill.font, color: p.ink, width, letterSpacing: 0.08, upperCase: true },
        bag(),
      )}
    </div>
  );
}

/** Without a brand: the theme's logo at the top row's height, when the theme has one. */
export function themeMark(theme: CardTheme | undefined, L: ProductLayout): Child {
  if (!theme?.logo) return undefined;
  return <img alt="" src={themeLogo(theme)!} style={containIn(theme.logo, L.topRow * 4, L.topRow)} />;
}

export function GradientBar({ L, p }: { L: ProductLayout; p: ProductPalette }) {
  return (
    <div
      style={{
        width: L.bar.width,
        height: L.bar.height,
        borderRadius: L.bar.height / 2,
        backgroundImage: gradient(p),
      }}
    />
  );
}
