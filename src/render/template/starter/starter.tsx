/**
 * __NAME__: a card template for Cardshot, scaffolded by `npx cardshot templates new __NAME__`.
 *
 * A template is this one file: a declaration (its fields, the sizes it lays out at, whether it
 * draws a brand, artwork or the account's theme) and `render`, which returns the card as JSX
 * for takumi (flexbox; numbers are pixels). `render` must be pure: the same fields and size
 * always give the same card, so a card's URL and ETag can be cached for a year.
 *
 * Text goes through <Text>, the fitter the built-in templates use: it picks the largest of
 * `box.steps` ([font size, most lines] pairs) whose lines fit the box, then cuts with an
 * ellipsis, so a headline of any length in any script never leaves the card (`face` names the
 * width table the fitter estimates with: sans-400, sans-800 or serif-700). Run
 * `npx cardshot templates check` after each change: it proves that at every size.
 *
 * It draws the account's brand theme (`theme: true`): with one, the theme's background, text
 * colour, accent, headline font and logo replace the starter's own look, and the brand line takes
 * `mutedTone`, a secondary tone that keeps 4.5:1 contrast on any background, light or dark.
 *
 * Request it as: POST /render/template {"template":"__NAME__","title":"…","accent":"#0EA5E9"}
 * or GET /render/template?template=__NAME__&title=…&size=square (add theme=none for the
 * starter's own look on an account that has a theme)
 */
import {
  type CardTheme,
  containIn,
  defineTemplate,
  FAMILY,
  headlineFace,
  mix,
  mutedTone,
  Text,
  themeLogo,
} from 'cardshot/template';

/** The starter's own look, and the theme's colours in its place when the card has one. */
function palette(theme: CardTheme | undefined, accent: string | undefined) {
  if (!theme) {
    return { background: '#0F172A', title: '#FFFFFF', brand: '#E2E8F0', accent: accent ?? '#6366F1' };
  }
  // A colour in the request wins over the theme's: it is what the caller asked for.
  const band = accent ?? theme.accent;
  return {
    background: theme.background,
    title: theme.text,
    // Against the background as the accent's glow tints it at most (a third), so the brand
    // line keeps 4.5:1 where the glow reaches it (the tall sizes).
    brand: mutedTone(theme.text, mix(theme.background, band, 0.33)),
    accent: band,
  };
}

/** Layout per size: landscape cards keep a wide measure, tall ones a bigger headline. */
function layout(width: number, height: number) {
  const portrait = height > width;
  const pad = Math.round(Math.min(width, height) * 0.09);
  return {
    pad,
    textWidth: width - 2 * pad,
    // What is left for the headline under the brand row and above the accent band.
    textHeight: height - 2 * pad - 44 - 48 - 24,
    steps: portrait
      ? ([
          [112, 3],
          [96, 4],
          [80, 5],
          [64, 6],
          [52, 8],
        ] as const)
      : ([
          [84, 2],
          [72, 3],
          [60, 3],
          [52, 4],
          [44, 5],
          [38, 6],
        ] as const),
  };
}

export default defineTemplate({
  description: 'Starter card: a bold headline on a deep background with an accent band.',
  fields: {
    title: { type: 'text', required: true, maxLength: 140, description: 'The headline.' },
    accent: {
      type: 'color',
      description:
        "Colour of the accent band and the brand mark (default: the theme's accent, else #6366F1).",
    },
  },
  sizes: ['og', 'twitter', 'square', 'linkedin', 'story'],
  brand: true,
  artwork: false,
  theme: true,

  render: (fields, { size, theme }) => {
    const { pad, textWidth, textHeight, steps } = layout(size.width, size.height);
    const c = palette(theme, fields.accent);
    const face = headlineFace(theme, { face: 'sans-800', family: FAMILY.sans, weight: 800 });
    const logo = theme?.logo ? containIn(theme.logo, 176, 44) : undefined;
    return (
      <div
        style={{
          width: size.width,
          height: size.height,
          display: 'flex',
          flexDirection: 'column',
          justifyContent: 'space-between',
          padding: pad,
          backgroundColor: c.background,
          backgroundImage: `radial-gradient(circle at 85% 10%, ${c.accent}55, transparent 55%)`,
        }}
      >
        <div style={{ display: 'flex', alignItems: 'center', gap: 14, height: 44 }}>
          {logo ? (
            <img alt="" src={themeLogo(theme)!} style={{ width: logo.width, height: logo.height }} />
          ) : (
            <div style={{ width: 14, height: 44, borderRadius: 7, backgroundColor: c.accent }} />
          )}
          {fields.brand ? (
            <Text
              box={{
                face: 'sans-400',
                steps: [
                  [26, 1],
                  [22, 1],
                ],
                width: textWidth - 14 - (logo ? logo.width : 14),
                height: 36,
                lineHeight: 1.2,
              }}
              color={c.brand}
            >
              {fields.brand}
            </Text>
          ) : null}
        </div>
        <Text
          box={{
            face: face.face,
            steps,
            width: textWidth,
            height: textHeight,
            lineHeight: 1.08,
            letterSpacing: -0.02,
          }}
          family={face.family}
          weight={face.weight}
          color={c.title}
          balance
        >
          {fields.title}
        </Text>
        <div
          style={{
            height: 8,
            width: Math.round(textWidth / 3),
            borderRadius: 4,
            backgroundColor: c.accent,
          }}
        />
      </div>
    );
  },
});
