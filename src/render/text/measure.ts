import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Renderer } from '@takumi-rs/core';
import { FALLBACK_FAMILIES, FAMILY, registerFonts } from './fonts.js';
import { fontStack } from './script.js';
import { fitScriptWidths, type ScriptWidths, scriptWidthsModule } from './script-widths.js';
import type { FaceKey } from './text-metrics.js';
import { FACES, type Widths, type WidthTables, widthsModule } from './widths-format.js';

/**
 * Measures advance widths with takumi's own layout (`measure`) from the registered font files, in
 * thousandths of an em: `npm run fonts:measure` rewrites widths.generated.ts with them (and
 * script-widths.generated.ts with the per-script averages fitted in script-widths.ts), and a test
 * checks the committed files against them, so a font or takumi upgrade is one command. A mark
 * counts as the advance it adds after a base letter; what draws nothing (controls, format
 * characters, unassigned code points) counts 0; a code point no registered font has counts the
 * missing-glyph box takumi draws. Nothing is set by hand: 323 hand-measured widths once overrode
 * the measurement, and without them every golden stayed pixel-identical and every layout test
 * passed, while a probe of 3,969 layouts found one subtitle the pins let takumi's clamp cut.
 */

/** The size text is measured at, so one px is a thousandth of an em. */
const EM = 1000;

/** A family and weight drawing one face's text in one script. */
type Font = readonly [family: string, weight: number];

/** A run of code points measured into a table of rows of 16 widths. */
export interface TableSpec {
  start: number;
  end: number;
  fonts: Readonly<Record<FaceKey, Font>>;
  /** The letter a mark is measured after: a mark counts as the advance it adds to it. */
  base: string;
  /** The share of its isolated advance a code point is counted at (1 unless given). */
  scale?: (cp: number) => number;
}

const DESIGN: Readonly<Record<FaceKey, Font>> = {
  'sans-400': [FAMILY.sans, 400],
  'sans-800': [FAMILY.sans, 800],
  'serif-700': [FAMILY.serif, 700],
};

/** A Noto family for a script the design faces lack: its bold also stands in for the serif. */
const noto = (family: string): Readonly<Record<FaceKey, Font>> => ({
  'sans-400': [family, 400],
  'sans-800': [family, 700],
  'serif-700': [family, 700],
});

/** ASCII, Latin-1 and Latin Extended-A in the design faces. */
export const LATIN: TableSpec = { start: 0x20, end: 0x17f, fonts: DESIGN, base: 'a' };

/**
 * Arabic, Persian and Urdu letters are counted at a share of their isolated advance (× 0.78 for
 * U+0620–U+064A, × 0.9 for the Persian and Urdu letters after them): joined text measured
 * 0.70–0.81 of the isolated sum on headlines, so this errs wide by up to 10% for Arabic, as RTL
 * has no clamp behind the estimate. The former flat 0.5 em under-counted Persian and Urdu bold
 * by 13–14%, and the clip sliced a line.
 */
function arabicScale(cp: number): number {
  if (cp >= 0x0620 && cp <= 0x064a) return 0.78;
  if (cp >= 0x066e && /\p{L}/u.test(String.fromCodePoint(cp))) return 0.9;
  return 1;
}

/**
 * Scripts whose letters vary too much for one average. Greek and Cyrillic capitals run ~15%
 * wider than their lower case (a flat 0.62/0.67 em fitted lower case and lost capital headlines'
 * last line to the clamp); Tamil letters run from 0.7 to 2.5 em and Khmer from 0.6 to 1.3, and
 * Arabic letters from 0.2 to 1.3. Other scripts use per-script averages (text-fit.ts).
 */
export const SCRIPTS: readonly TableSpec[] = [
  { start: 0x0370, end: 0x045f, fonts: DESIGN, base: 'a' },
  { start: 0x0b80, end: 0x0bff, fonts: noto(FAMILY.tamil), base: 'க' },
  { start: 0x1780, end: 0x17ff, fonts: noto(FAMILY.khmer), base: 'ក' },
  { start: 0x0600, end: 0x06ff, fonts: noto(FAMILY.arabic), base: 'ب', scale: arabicScale },
];

/** Control and format characters, unassigned code points and default-ignorables draw nothing. */
const NOTHING = /[\p{Cc}\p{Cf}\p{Cn}\p{Default_Ignorable_Code_Point}]/u;
const MARK = /\p{M}/u;

/** The service's fonts in a renderer of their own, unless `engine` already has them. */
async function withFonts(engine?: Renderer): Promise<Renderer> {
  if (engine) return engine;
  const renderer = new Renderer();
  await registerFonts(renderer);
  return renderer;
}

/** Width in thousandths of an em of `text` on one line, as takumi lays it out in `font`. */
function widthIn(renderer: Renderer) {
  return async (text: string, [family, weight]: Font) => {
    const measured = await renderer.measure(
      {
        type: 'text',
        text,
        style: { fontFamily: fontStack(text, family), fontSize: EM, fontWeight: weight, whiteSpace: 'pre' },
      },
      { fontFamilies: [...FALLBACK_FAMILIES] },
    );
    return measured.width;
  };
}

/** Measures every table (with `engine`, or a renderer of its own with the service's fonts). */
export async function measureTables(engine?: Renderer): Promise<WidthTables> {
  const width = widthIn(await withFonts(engine));
  const advance = async (cp: number, spec: TableSpec, font: Font) => {
    const ch = String.fromCodePoint(cp);
    if (NOTHING.test(ch)) return 0;
    if (MARK.test(ch)) return (await width(spec.base + ch, font)) - (await width(spec.base, font));
    return (await width(ch, font)) * (spec.scale?.(cp) ?? 1);
  };
  const table = async (spec: TableSpec): Promise<Widths> => {
    const out = {} as Record<FaceKey, number[]>;
    for (const face of FACES) {
      const widths: number[] = [];
      for (let cp = spec.start; cp <= spec.end; cp++)
        widths.push(Math.max(0, Math.round(await advance(cp, spec, spec.fonts[face]))));
      out[face] = widths;
    }
    return out;
  };
  // "…" ends every cut: counted a thousandth of an em past its advance, so a cut line is never
  // planned too short.
  const ellipsis = {} as Record<FaceKey, number>;
  for (const face of FACES) ellipsis[face] = (Math.floor(await width('…', DESIGN[face])) + 1) / EM;
  const scripts = [];
  for (const spec of SCRIPTS) scripts.push({ start: spec.start, widths: await table(spec) });
  return { latin: { start: LATIN.start, widths: await table(LATIN) }, scripts, ellipsis };
}

/** The repository's root: the nearest folder up from this module with a package.json. */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

/** The size and line height the per-script averages are checked at, as text-fit.test.ts does. */
const CHECK_SIZE = 56;
const CHECK_LINE_HEIGHT = 1.25;

/**
 * The per-script averages, fitted to headlines as each face draws them (the design face first,
 * as templates draw text; script-widths.ts).
 */
export async function measureScriptWidths(engine?: Renderer): Promise<ScriptWidths> {
  const renderer = await withFonts(engine);
  const width = widthIn(renderer);
  return fitScriptWidths({
    width: async (text, face) => (await width(text, DESIGN[face])) / EM,
    lines: async (text, face, em) => {
      const [family, weight] = DESIGN[face];
      const style = { fontFamily: fontStack(text, family), fontSize: CHECK_SIZE, fontWeight: weight };
      const measured = await renderer.measure(
        {
          type: 'text',
          text,
          style: {
            ...style,
            width: em * CHECK_SIZE,
            lineHeight: CHECK_LINE_HEIGHT,
            overflowWrap: 'anywhere',
          },
        },
        { fontFamilies: [...FALLBACK_FAMILIES] },
      );
      return Math.round(measured.height / (CHECK_SIZE * CHECK_LINE_HEIGHT));
    },
  });
}

/** Where the generated tables live, from the source or the compiled module alike. */
export const GENERATED_PATH = join(repoRoot(), 'src', 'render', 'text', 'widths.generated.ts');
export const SCRIPT_WIDTHS_PATH = join(repoRoot(), 'src', 'render', 'text', 'script-widths.generated.ts');

/** Rewrites widths.generated.ts and script-widths.generated.ts. */
async function main(): Promise<void> {
  const engine = await withFonts();
  writeFileSync(GENERATED_PATH, widthsModule(await measureTables(engine)));
  console.log(`wrote ${GENERATED_PATH}`);
  writeFileSync(SCRIPT_WIDTHS_PATH, scriptWidthsModule(await measureScriptWidths(engine)));
  console.log(`wrote ${SCRIPT_WIDTHS_PATH}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
