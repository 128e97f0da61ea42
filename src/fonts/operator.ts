/**
 * Fonts an operator puts beside the template files (CARDSHOT_FONTS_DIR, default
 * CARDSHOT_TEMPLATES_DIR/fonts): checked like uploads at start, registered in every engine under
 * the family each file names, so every template file and every account can use them. A file that
 * fails its check stops the start with the file and the reason, like a broken template file.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Renderer } from '@takumi-rs/core';
import { setOperatorFaces } from '../render/text/operator-faces.js';
import { familyProblem } from './family.js';
import type { FaceMetrics } from './metrics.js';
import { FontRejected, probeFont } from './probe.js';

/** One operator font file, checked. */
export interface OperatorFont {
  file: string;
  family: string;
  data: Buffer;
  sha256: string;
  weightRange: [number, number];
  italic: boolean;
  metrics: FaceMetrics;
}

const FONT_FILE = /\.(woff2|woff|ttf|otf)$/i;

/** Reads and checks every font file of `dir` (none when it does not exist), sorted by name. */
export async function loadOperatorFonts(dir: string): Promise<OperatorFont[]> {
  const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return [] as string[];
    throw err;
  });
  const fonts: OperatorFont[] = [];
  for (const name of names.filter((n) => FONT_FILE.test(n)).sort()) {
    const file = path.join(dir, name);
    const data = await readFile(file);
    const info = await probeFont(data).catch((err: unknown) => {
      if (err instanceof FontRejected) throw new Error(`font file ${file}: ${err.message}`);
      throw err;
    });
    const problem = info.family === '' ? 'the font names no family' : familyProblem(info.family);
    if (problem) throw new Error(`font file ${file}: ${problem}`);
    fonts.push({
      file,
      family: info.family,
      data,
      sha256: createHash('sha256').update(data).digest('hex'),
      weightRange: info.weightRange,
      italic: info.italic,
      metrics: {
        codePoints: info.codePoints,
        widths: info.widths,
        weight: info.weight,
        weightRange: info.weightRange,
        scales: info.scales,
      },
    });
  }
  setOperatorFaces(fonts.map((f) => ({ family: f.family, key: f.sha256.slice(0, 16), metrics: f.metrics })));
  return fonts;
}

/** Registers the operator fonts in `engine` under their own family names. */
export async function registerOperatorFonts(engine: Renderer, fonts: readonly OperatorFont[]): Promise<void> {
  for (const f of fonts) {
    const variable = f.weightRange[0] !== f.weightRange[1];
    await engine.registerFont({
      name: f.family,
      data: f.data,
      ...(variable ? {} : { weight: f.metrics.weight }),
      style: f.italic ? 'italic' : 'normal',
    });
  }
}

/** The operator fonts' content, for the renderer's version (part of every ETag). */
export function operatorFontsHash(fonts: readonly OperatorFont[]): string {
  return createHash('sha256')
    .update(fonts.map((f) => `${f.family}:${f.sha256}`).join('\n'))
    .digest('hex')
    .slice(0, 12);
}
