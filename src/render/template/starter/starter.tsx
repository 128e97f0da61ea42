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
 * Request it as: POST /render/template {"template":"__NAME__","title":"…","accent":"#0EA5E9"}
 * or GET /render/template?template=__NAME__&title=…&size=square
 */
import { defineTemplate, Text } from 'cardshot/template';

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
      default: '#6366F1',
      description: 'Colour of the accent band and the brand mark.',
    },
  },
  sizes: ['og', 'twitter', 'square', 'linkedin', 'story'],
  brand: true,
  artwork: false,
  theme: false,

  render: (fields, { size }) => {
    const { pad, textWidth, textHeight, steps } = layout(size.width, size.height);
    return (
      <div
        style={{
          width: size.width,
          height: size.height,
          display: 'flex',
          flexDirection: 'column',
          justifyContent: 'space-between',
          padding: pad,
          backgroundColor: '#0F172A',
          backgroundImage: `radial-gradient(circle at 85% 10%, ${fields.accent}55, transparent 55%)`,
        }}
      >
        <div style={{ display: 'flex', alignItems: 'center', gap: 14, height: 44 }}>
          <div style={{ width: 14, height: 44, borderRadius: 7, backgroundColor: fields.accent }} />
          {fields.brand ? (
            <Text
              box={{
                face: 'sans-400',
                steps: [
                  [26, 1],
                  [22, 1],
                ],
                width: textWidth - 28,
                height: 36,
                lineHeight: 1.2,
              }}
              color="#E2E8F0"
            >
              {fields.brand}
            </Text>
          ) : null}
        </div>
        <Text
          box={{
            face: 'sans-800',
            steps,
            width: textWidth,
            height: textHeight,
            lineHeight: 1.08,
            letterSpacing: -0.02,
          }}
          weight={800}
          color="#FFFFFF"
          balance
        >
          {fields.title}
        </Text>
        <div
          style={{
            height: 8,
            width: Math.round(textWidth / 3),
            borderRadius: 4,
            backgroundColor: fields.accent,
          }}
        />
      </div>
    );
  },
});
