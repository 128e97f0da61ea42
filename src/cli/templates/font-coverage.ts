import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { indexOf } from '../../fonts/metrics.js';
import { loadOperatorFonts } from '../../fonts/operator.js';
import { FontRejected, probeFont } from '../../fonts/probe.js';
import { CHECK_SAMPLES } from '../../render/template/check-samples.js';
import { operatorFontsDir } from '../../render/template/files/area.js';
import { loadConfig } from '../../settings.js';
import { UsageError } from '../admin.js';

/** What `templates check --font` reports for one sample: the characters the font lacks. */
export interface FontGap {
  sample: string;
  missing: string[];
}

/** The font's report: its name and, per sample, the characters a bundled family draws instead. */
export interface FontCoverage {
  font: string;
  gaps: FontGap[];
}

const SKIPPED =
  /[\s\p{Default_Ignorable_Code_Point}\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}]/u;

/**
 * Which characters of the check's sample fields the chosen font has no glyph for: `font` is a
 * font file, or a family in the operator's fonts directory. They are not an error: the bundled
 * Noto families draw them (never a box), but they will not be in the brand's type.
 */
export async function fontCoverage(font: string, templatesDir?: string): Promise<FontCoverage> {
  const { codePoints, name } = await chosenFont(font, templatesDir);
  const has = (cp: number) => indexOf({ codePoints } as never, cp) >= 0;
  const gaps = CHECK_SAMPLES.filter((s) => !s.name.endsWith(' long')).flatMap((sample) => {
    const text = `${sample.text(300)}${sample.brand}`;
    const missing = [...new Set([...text].filter((ch) => !SKIPPED.test(ch) && !has(ch.codePointAt(0)!)))];
    return missing.length > 0 ? [{ sample: sample.name, missing }] : [];
  });
  return { font: name, gaps };
}

async function chosenFont(
  font: string,
  templatesDir?: string,
): Promise<{ codePoints: Uint32Array; name: string }> {
  if (existsSync(font)) {
    try {
      const info = await probeFont(await readFile(font));
      return { codePoints: info.codePoints, name: `${info.family} (${font})` };
    } catch (err) {
      if (err instanceof FontRejected) throw new UsageError(`--font ${font}: ${err.message}`);
      throw err;
    }
  }
  const dir = templatesDir
    ? path.join(templatesDir, 'fonts')
    : operatorFontsDir(loadConfig(undefined, process.env));
  const fonts = await loadOperatorFonts(dir);
  const found = fonts.filter((f) => f.family.toLowerCase() === font.toLowerCase());
  if (found.length === 0) {
    const known = [...new Set(fonts.map((f) => f.family))];
    throw new UsageError(
      `--font ${font}: no such file, and no such family in the fonts directory${known.length > 0 ? ` (it has: ${known.join(', ')})` : ''}`,
    );
  }
  const all = new Set(found.flatMap((f) => [...f.metrics.codePoints]));
  return { codePoints: Uint32Array.from([...all].sort((a, b) => a - b)), name: found[0]!.family };
}

/** The report's lines. */
export function formatCoverage(c: FontCoverage): string[] {
  if (c.gaps.length === 0) return [`FONT ${c.font}: has every character of the samples`];
  return [
    `FONT ${c.font}: lacks characters the samples use (the bundled Noto families draw them instead):`,
    ...c.gaps.map((g) => {
      const shown = g.missing.slice(0, 24).join(' ');
      return `  ${g.sample}: ${g.missing.length} missing: ${shown}${g.missing.length > 24 ? ' …' : ''}`;
    }),
  ];
}
