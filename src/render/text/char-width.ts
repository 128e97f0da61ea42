import { SCRIPT_WIDTHS } from './script-widths.generated.js';
import type { ScriptAverages, ScriptWidth } from './script-widths.js';
import type { FaceKey } from './text-metrics.js';
import { ELLIPSIS, SCRIPT_ROWS, TABLE_START, WIDTH_ROWS } from './widths.generated.js';

/**
 * Advance widths in em of single code points, for text-fit.ts: measured tables first, then
 * per-script estimates for the Noto families without one.
 */

const parse = (rows: Readonly<Record<FaceKey, readonly string[]>>) =>
  Object.fromEntries(
    Object.entries(rows).map(([face, lines]) => [face, lines.join(' ').split(' ').map(Number)]),
  ) as Record<FaceKey, number[]>;
const TABLES = parse(WIDTH_ROWS);
const SCRIPT_TABLES = SCRIPT_ROWS.map(({ start, rows }) => ({ start, widths: parse(rows) }));

const MARK = /\p{M}/u;
const NONSPACING = /\p{Mn}/u;
const SPACING = /\p{Mc}/u;
const MYANMAR_WIDE = /[ကဃဆညဏတထဘယလသဟအဢဣဤဩဪဿ]/u;
/** ါ ာ ေ း ျ ြ, measured after a consonant. */
const MYANMAR_SIGNS: ReadonlyMap<number, number> = new Map([
  [0x102b, 0.32],
  [0x102c, 0.46],
  [0x1031, 0.63],
  [0x1038, 0.38],
  [0x103b, 0.31],
  [0x103c, 0.33],
]);

/** Estimated advance in em of one code point in a face. */
export type CharWidth = (cp: number, face: FaceKey) => number;

/** `charWidth` over other per-script averages: `npm run fonts:measure` tries candidates with it. */
export function charWidthWith(averages: ScriptAverages): CharWidth {
  return (cp, face) => {
    const table = TABLES[face];
    const index = cp - TABLE_START;
    if (index >= 0 && index < table.length) return table[index]! / 1000;
    if (cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0x200b && cp <= 0x200f)) return 0;
    const measured = scriptTableWidth(cp, face);
    if (measured !== undefined) return measured;
    // "…" ends every cut: counted at the default 0.75 it left a cut line 0.1–0.3 em too long.
    if (cp === 0x2026) return ELLIPSIS[face];
    if (cp === 0x22ef) return 1; // the CJK ellipsis "⋯", drawn full-width by the Noto CJK faces
    return estimatedWidth(cp, averages[face]);
  };
}

/** Estimated advance of one code point in em for a face. */
export const charWidth: CharWidth = charWidthWith(SCRIPT_WIDTHS);

function scriptTableWidth(cp: number, face: FaceKey): number | undefined {
  for (const { start, widths } of SCRIPT_TABLES) {
    const width = widths[face][cp - start];
    // 0 in a table is a mark that takes no room, or a code point without a glyph.
    if (width !== undefined && cp >= start) return width / 1000;
  }
  return undefined;
}

/** A code point no table measures: by its script's averages, then by its block. */
function estimatedWidth(cp: number, averages: readonly ScriptWidth[]): number {
  // Indic and Thai marks are measured per category: vowel signs that take space (Mc) do.
  if (cp >= 0x0900 && cp <= 0x097f) return devanagariWidth(cp);
  if (cp >= 0x0e00 && cp <= 0x0e7f) return NONSPACING.test(String.fromCodePoint(cp)) ? 0 : 0.6;
  if (cp >= 0x1000 && cp <= 0x109f) return myanmarWidth(cp);
  // Scripts averaged over headlines per face (script-widths.ts): a mark that takes no room is 0.
  const script = averages.find(([first, last]) => cp >= first && cp <= last);
  if (script) {
    const ch = String.fromCodePoint(cp);
    return NONSPACING.test(ch) ? 0 : SPACING.test(ch) ? script[3] : script[2];
  }
  return blockWidth(cp);
}

function devanagariWidth(cp: number): number {
  const ch = String.fromCodePoint(cp);
  if (NONSPACING.test(ch)) return 0;
  if (SPACING.test(ch)) return 0.3;
  // Consonants measure 0.44–0.88 em (bold), the independent vowels up to 1.15 (आ ओ औ): a flat
  // 0.62 under-counted headlines by 7% and lost their last line to the clip.
  return cp >= 0x0904 && cp <= 0x0914 ? 0.85 : 0.68;
}

// Myanmar letters come in two widths (the double-bowl က တ သ … 1.1 em, the rest 0.7) and its
// signs run from 0.3 to 0.63 em, alike in both weights: single averages were off by 10% either
// way depending on the headline.
function myanmarWidth(cp: number): number {
  const ch = String.fromCodePoint(cp);
  if (NONSPACING.test(ch)) return 0;
  if (SPACING.test(ch)) return MYANMAR_SIGNS.get(cp) ?? 0.48;
  return MYANMAR_WIDE.test(ch) ? 1.13 : 0.72;
}

function blockWidth(cp: number): number {
  if (MARK.test(String.fromCodePoint(cp))) return 0;
  if (cp >= 0x1100 && cp <= 0x11ff) return 0.93;
  if (cp >= 0xac00 && cp <= 0xd7af) return 0.93; // Hangul syllables
  if (isCjk(cp)) return 1;
  if (cp >= 0x0460 && cp <= 0x052f) return 0.75; // Cyrillic beyond the table (historic, Komi, …)
  if (cp >= 0x0590 && cp <= 0x05ff) return 0.58; // Hebrew
  if (cp >= 0x1e00 && cp <= 0x1eff) return 0.64; // Latin Extended Additional (Vietnamese)
  return 0.75;
}

/** Han, kana, CJK punctuation and full-width forms: one em wide, a break allowed around each. */
export function isCjk(cp: number): boolean {
  return (
    (cp >= 0x2e80 && cp <= 0x303f) ||
    (cp >= 0x3040 && cp <= 0x30ff) ||
    (cp >= 0x3100 && cp <= 0x31ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xff00 && cp <= 0xffef) ||
    (cp >= 0x20000 && cp <= 0x3ffff)
  );
}
