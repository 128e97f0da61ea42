import { describe, expect, it } from 'vitest';
import { charWidth } from '../../../src/render/text/char-width.js';
import type { ScriptHeadlines } from '../../../src/render/text/script-headlines.js';
import { SCRIPT_WIDTHS } from '../../../src/render/text/script-widths.generated.js';
import { fitScriptWidths, type Layout } from '../../../src/render/text/script-widths.js';
import type { FaceKey } from '../../../src/render/text/text-metrics.js';

const FACES: readonly FaceKey[] = ['sans-400', 'sans-800', 'serif-700'];
const KA = 'ಕ';
const AA = '\u0cbe'; // ಾ, a vowel sign that takes space (Mc)
const I = '\u0cbf'; // ಿ, a vowel sign drawn above (Mn)
const ZWNJ = '\u200c';

/**
 * A fake takumi: fixed widths per string, so every number in a fit can be worked out by hand,
 * and a line count per box width (one line unless given).
 */
function fakeLayout(widths: Record<string, number>, lines: (width: number) => number = () => 1): Layout {
  return {
    width: async (text) => {
      const width = widths[text];
      if (width === undefined) throw new Error(`unexpected measure of ${JSON.stringify(text)}`);
      return width;
    },
    lines: async (_text, _face, width) => lines(width),
  };
}

const kannada = (headlines: string[]): ScriptHeadlines => ({
  name: 'Kannada',
  first: 0x0c80,
  last: 0x0cff,
  base: KA,
  headlines,
});

describe('fitting per-script averages to headlines', () => {
  it('takes the sign after the base letter and the letter from the headline that needs the most', async () => {
    const wide = `${KA}${KA} ${KA}${AA}`; // 3 letters, 1 space, 1 sign
    const narrow = `${KA}${KA}${KA}`; // 3 letters
    const layout = fakeLayout({ ' ': 0.25, [KA]: 0.8, [KA + AA]: 1.1, [wide]: 3.0, [narrow]: 2.1 });
    const { names, widths } = await fitScriptWidths(layout, [kannada([narrow, wide])]);
    expect(names).toEqual(['Kannada']);
    // sign 1.1 - 0.8 = 0.3; letter (3.0 - 0.25 - 0.3) / 3 = 0.8167 rounds up to 0.82 (not 2.1 / 3 = 0.7).
    for (const face of FACES) expect(widths[face]).toEqual([[0x0c80, 0x0cff, 0.82, 0.3]]);
  });

  it('rounds up to a hundredth, but an exact hundredth stays as it is', async () => {
    const exact = await fitScriptWidths(fakeLayout({ ' ': 0.25, [KA + KA]: 1.38 }), [kannada([KA + KA])]);
    expect(exact.widths['sans-400']).toEqual([[0x0c80, 0x0cff, 0.69, 0]]);
    const over = await fitScriptWidths(fakeLayout({ ' ': 0.25, [KA + KA]: 1.3802 }), [kannada([KA + KA])]);
    expect(over.widths['sans-400']).toEqual([[0x0c80, 0x0cff, 0.7, 0]]);
  });

  it('counts marks drawn above or below and ZWNJ as nothing, as the estimate does', async () => {
    const headline = `${KA}${I}${ZWNJ}${KA}`; // 2 letters
    const { widths } = await fitScriptWidths(fakeLayout({ ' ': 0.25, [headline]: 1.6 }), [
      kannada([headline]),
    ]);
    expect(widths['sans-800']).toEqual([[0x0c80, 0x0cff, 0.8, 0]]);
  });

  it('raises the letter until no line width a face is set at gets fewer lines planned than drawn', async () => {
    const word = KA.repeat(10);
    const headline = `${word} ${word}`;
    // 20 letters and a space in 10.25 em fit a letter of 0.5 em. Takumi draws the two words on
    // two lines in a box under 12 em: with the fitter's 3% safety, 11.75 em (the widest such
    // box the sans faces are checked at) needs (20 x letter + 0.25) x 1.03 > 11.75, so 0.56 em.
    const layout = fakeLayout({ ' ': 0.25, [headline]: 10.25 }, (width) => (width < 12 ? 2 : 1));
    const { widths } = await fitScriptWidths(layout, [kannada([headline])]);
    expect(widths['sans-800']).toEqual([[0x0c80, 0x0cff, 0.56, 0]]);
    expect(widths['serif-700']).toEqual([[0x0c80, 0x0cff, 0.56, 0]]);
    // Subtitles (sans-400) are never set under 15 em wide: the width fit stands.
    expect(widths['sans-400']).toEqual([[0x0c80, 0x0cff, 0.5, 0]]);
  });

  it('gives up, naming the script, face, headline and width, when no average plans enough lines', async () => {
    const layout = fakeLayout({ ' ': 0.25, [KA + KA]: 1.4 }, () => 99);
    await expect(fitScriptWidths(layout, [kannada([KA + KA])])).rejects.toThrow(
      /^Kannada sans-400: even a letter of 0\.\d+ em plans fewer lines than takumi draws \(99\) for "ಕಕ" 15 em wide$/,
    );
  });

  it('refuses a headline with a character outside its block, naming it', async () => {
    const layout = fakeLayout({ ' ': 0.25 });
    await expect(fitScriptWidths(layout, [kannada([`${KA}: ${KA}`])])).rejects.toThrow(
      /^Kannada headline has U\+3a, outside its block/,
    );
  });
});

describe('the estimate reads the generated averages', () => {
  it('for a letter, a spacing sign and a mark above, in every face', () => {
    for (const face of FACES) {
      const row = SCRIPT_WIDTHS[face].find(([first]) => first === 0x0c80)!;
      expect(charWidth(KA.codePointAt(0)!, face), face).toBe(row[2]);
      expect(charWidth(AA.codePointAt(0)!, face), face).toBe(row[3]);
      expect(charWidth(I.codePointAt(0)!, face), face).toBe(0);
    }
  });

  it('has a row for every script in every face, regular narrower than bold', () => {
    for (const face of FACES) expect(SCRIPT_WIDTHS[face].length).toBe(SCRIPT_WIDTHS['sans-800'].length);
    for (const [i, [, , letter]] of SCRIPT_WIDTHS['sans-400'].entries())
      expect(letter).toBeLessThanOrEqual(SCRIPT_WIDTHS['sans-800'][i]![2]);
  });
});
