import { charWidthWith } from './char-width.js';
import { SCRIPT_HEADLINES, type ScriptHeadlines } from './script-headlines.js';
import { fitText } from './text-fit.js';
import type { FaceKey } from './text-metrics.js';
import { FACES } from './widths-format.js';

/**
 * Per-script averages for the Noto families without a per-glyph table (Armenian, Bengali, …,
 * Ethiopic): one advance for a letter and one for a vowel sign that takes space (Mc), in em,
 * per face. Without them Malayalam and Sinhala letters, nearly an em wide, were counted at the
 * default 0.75 and titles lost words to the clip instead of shrinking. Letters in these scripts
 * join into conjuncts and stacks, so the isolated advance of each says little about a headline:
 * the averages are fitted to real headlines (script-headlines.ts) as takumi lays them out in
 * each face. The sign is the mean advance the headlines' signs add after a base letter. The
 * letter starts from what is left of a headline's width after its spaces and signs, per letter,
 * from the headline that needs the most, and then rises a hundredth at a time until the fitter
 * plans no fewer lines than takumi draws for any headline at any line width the templates set
 * the face at: fitted to
 * the width alone, a Kannada headline 10.7 em wide was planned 5 lines where takumi drew 6 (its
 * words run from 0.8 to 1.4 times the average), and a plan a line short lets takumi's clamp cut
 * the title.
 */

/** `[first, last, letter, sign]`: a block of code points and its advances in em. */
export type ScriptWidth = readonly [first: number, last: number, letter: number, sign: number];

/** Per face, the averages of every block. */
export type ScriptAverages = Readonly<Record<FaceKey, readonly ScriptWidth[]>>;

/** Every face's averages, with each block's script name for the generated file's comments. */
export interface ScriptWidths {
  names: readonly string[];
  widths: ScriptAverages;
}

/** How takumi lays text out in a face, in em. */
export interface Layout {
  /** The width of `text` on one line. */
  width(text: string, face: FaceKey): Promise<number>;
  /** How many lines `text` takes in a box `width` em wide. */
  lines(text: string, face: FaceKey, width: number): Promise<number>;
}

/**
 * The line widths, in em, the templates set each face at, checked every quarter em. Subtitles
 * (sans-400) run from 15.7 em (saas beside its screenshot) to 38 (saas without one); titles in
 * sans-800 from 7.2 (saas beside its screenshot, 64 px) to 26, and brand labels up to 35; the
 * blog's serif-700 title from 10.4 to 25. Outside them nothing is drawn, and in a line only
 * one or two long words wide no single average plans every headline right both ways.
 */
const LINE_WIDTHS: Readonly<Record<FaceKey, readonly [from: number, to: number]>> = {
  'sans-400': [15, 40],
  'sans-800': [7, 36],
  'serif-700': [10, 26],
};

/** Every quarter em from `from` to `to`. */
export function checkWidths(face: FaceKey): number[] {
  const [from, to] = LINE_WIDTHS[face];
  return Array.from({ length: (to - from) * 4 + 1 }, (_, i) => from + i / 4);
}

/** How far the letter may rise above the width fit before the fit gives up and says so. */
const MAX_RISE = 1.3;

const NONSPACING = /\p{Mn}/u;
const SPACING = /\p{Mc}/u;
/** ZWNJ and ZWJ choose a form; the estimate counts them 0 (char-width.ts). */
const JOINERS = new Set([0x200c, 0x200d]);

/** Rounds up to a hundredth; the epsilon keeps an exact 0.69 from becoming 0.7 by float error. */
const ceil2 = (em: number) => Math.max(0, Math.ceil(em * 100 - 1e-6) / 100);

/** A headline's code points by how the estimate counts them. */
function census(script: ScriptHeadlines, headline: string) {
  let letters = 0;
  let spaces = 0;
  const signs: string[] = [];
  for (const ch of headline) {
    const cp = ch.codePointAt(0)!;
    if (ch === ' ') spaces++;
    else if (JOINERS.has(cp)) continue;
    else if (cp < script.first || cp > script.last)
      throw new Error(`${script.name} headline has U+${cp.toString(16)}, outside its block: "${headline}"`);
    else if (SPACING.test(ch)) signs.push(ch);
    else if (!NONSPACING.test(ch)) letters++;
  }
  return { letters, spaces, signs };
}

/** The mean advance the headlines' vowel signs add after the script's base letter. */
async function fitSign(script: ScriptHeadlines, signs: readonly string[], face: FaceKey, layout: Layout) {
  if (signs.length === 0) return 0;
  const base = await layout.width(script.base, face);
  let sum = 0;
  for (const ch of signs) sum += (await layout.width(script.base + ch, face)) - base;
  return ceil2(sum / signs.length);
}

/** Lines the fitter plans for `text` in a box `width` em wide with `row` as its script's averages. */
function plannedLines(text: string, face: FaceKey, width: number, row: ScriptWidth): number {
  const widthOf = charWidthWith({ 'sans-400': [row], 'sans-800': [row], 'serif-700': [row] });
  // Any size will do: the plan depends on the width in em only.
  const box = { face, steps: [[100, 1e6]] as const, width: width * 100, height: 1e9, lineHeight: 1 };
  return fitText(text, box, false, widthOf).lines;
}

async function fitScript(script: ScriptHeadlines, face: FaceKey, layout: Layout): Promise<ScriptWidth> {
  const counted = script.headlines.map((headline) => ({ headline, ...census(script, headline) }));
  const sign = await fitSign(
    script,
    counted.flatMap(({ signs }) => signs),
    face,
    layout,
  );
  // Spaces are drawn by the design face and counted from its Latin table, in thousandths.
  const space = Math.round((await layout.width(' ', face)) * 1000) / 1000;
  let fitted = 0;
  for (const { headline, letters, spaces, signs } of counted) {
    const rest = (await layout.width(headline, face)) - spaces * space - signs.length * sign;
    fitted = Math.max(fitted, rest / letters);
  }
  const checks: { headline: string; width: number; drawn: number }[] = [];
  for (const { headline } of counted)
    for (const width of checkWidths(face))
      checks.push({ headline, width, drawn: await layout.lines(headline, face, width) });
  let letter = ceil2(fitted);
  for (;;) {
    const row: ScriptWidth = [script.first, script.last, letter, sign];
    const short = checks.find((c) => plannedLines(c.headline, face, c.width, row) < c.drawn);
    if (!short) return row;
    if (letter > fitted * MAX_RISE)
      throw new Error(
        `${script.name} ${face}: even a letter of ${letter} em plans fewer lines than takumi draws (${short.drawn}) for "${short.headline}" ${short.width} em wide`,
      );
    letter = Math.round(letter * 100 + 1) / 100;
  }
}

/** Fits every script's averages in every face to how `layout` draws the headlines. */
export async function fitScriptWidths(
  layout: Layout,
  scripts: readonly ScriptHeadlines[] = SCRIPT_HEADLINES,
): Promise<ScriptWidths> {
  const widths = {} as Record<FaceKey, ScriptWidth[]>;
  for (const face of FACES) {
    widths[face] = [];
    for (const script of scripts) widths[face].push(await fitScript(script, face, layout));
  }
  return { names: scripts.map(({ name }) => name), widths };
}

const hex = (cp: number) => `0x${cp.toString(16).padStart(4, '0')}`;

/** The source of `script-widths.generated.ts` for `fitted`, formatted as biome formats it. */
export function scriptWidthsModule(fitted: ScriptWidths): string {
  const rows = (face: FaceKey) =>
    fitted.widths[face].map(
      ([first, last, letter, sign], i) =>
        `    [${hex(first)}, ${hex(last)}, ${letter}, ${sign}], // ${fitted.names[i]}`,
    );
  return [
    '// Generated by `npm run fonts:measure` (src/render/text/script-widths.ts) from the registered',
    '// fonts and the headlines in script-headlines.ts: do not edit.',
    "import type { ScriptWidth } from './script-widths.js';",
    "import type { FaceKey } from './text-metrics.js';",
    '',
    '/** Per face, `[first, last, letter, sign]` in em for scripts measured by average (see script-widths.ts). */',
    'export const SCRIPT_WIDTHS: Readonly<Record<FaceKey, readonly ScriptWidth[]>> = {',
    ...FACES.flatMap((face) => [`  '${face}': [`, ...rows(face), '  ],']),
    '};',
    '',
  ].join('\n');
}
