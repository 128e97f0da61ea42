import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Renderer } from '@takumi-rs/core';

/**
 * Every face the templates can reach, from npm packages only (@fontsource subsets and the complete
 * Inter from inter-ui; no network at run time).
 * Only the weights the templates use are registered; a Noto family serves one script each and
 * falls back by `unicodeRange`, so a title in any supported script never draws tofu.
 * Bump FONTS_VERSION whenever this list or a package version changes: it is part of the ETag.
 */
export const FONTS_VERSION = 4;

export const FAMILY = {
  sans: 'Inter',
  serif: 'Source Serif 4',
  sc: 'Noto Sans SC',
  jp: 'Noto Sans JP',
  kr: 'Noto Sans KR',
  arabic: 'Noto Sans Arabic',
  hebrew: 'Noto Sans Hebrew',
  devanagari: 'Noto Sans Devanagari',
  thai: 'Noto Sans Thai',
  armenian: 'Noto Sans Armenian',
  georgian: 'Noto Sans Georgian',
  ethiopic: 'Noto Sans Ethiopic',
  bengali: 'Noto Sans Bengali',
  gurmukhi: 'Noto Sans Gurmukhi',
  gujarati: 'Noto Sans Gujarati',
  tamil: 'Noto Sans Tamil',
  telugu: 'Noto Sans Telugu',
  kannada: 'Noto Sans Kannada',
  malayalam: 'Noto Sans Malayalam',
  sinhala: 'Noto Sans Sinhala',
  lao: 'Noto Sans Lao',
  myanmar: 'Noto Sans Myanmar',
  khmer: 'Noto Sans Khmer',
  /** The whole Inter, not split into subsets: tried after every subset (see COMPLETE). */
  complete: 'Inter Complete',
  /** Symbol fonts, tried last of all (see SYMBOL_SPECS). */
  symbols: 'Noto Sans Symbols',
  symbols2: 'Noto Sans Symbols 2',
} as const;

interface FamilySpec {
  pkg: string;
  family: string;
  weights: readonly number[];
  /** Which subsets of the package to register: all, the numbered CJK slices, or named ones. */
  subsets: 'all' | 'numbered' | readonly string[];
}

/**
 * Where a face stands: `text` fonts draw letters and the symbols they have; `symbols` fonts are
 * the last resort, for the dingbats, arrows and shapes (✘ ☐ ➜ ✦ ☰) no text font has. A
 * text-default pictograph (✔ ☺ ✈) that only a symbols font draws stays a colour emoji, as
 * browsers show it: the symbols tier only draws what would otherwise be refused.
 */
export type FontTier = 'text' | 'symbols';

/**
 * Scripts with one small Noto family each, named by the @fontsource package and its subset: one
 * file a weight (20-200 KB). Together 28 files; registering them alone takes ~12 ms.
 *
 * Bengali is pinned to @fontsource 4.5.14 (Noto Sans Bengali 2.003): takumi's shaper does not
 * form the ra-phala (প্র, ক্র) from the 3.x font of @fontsource 5, drawing a visible hasanta
 * (প্‌র) in a very common Bengali conjunct. 2.003 forms it; it lacks only U+0980 and U+09FC-09FE
 * (rare Vedic signs), which are refused like any character no font draws.
 */
const SMALL_SCRIPTS = [
  'armenian',
  'georgian',
  'ethiopic',
  'bengali',
  'gurmukhi',
  'gujarati',
  'tamil',
  'telugu',
  'kannada',
  'malayalam',
  'sinhala',
  'lao',
  'myanmar',
  'khmer',
] as const;

const SPECS: readonly FamilySpec[] = [
  { pkg: 'inter', family: FAMILY.sans, weights: [400, 600, 800], subsets: 'all' },
  { pkg: 'source-serif-4', family: FAMILY.serif, weights: [700], subsets: 'all' },
  // The Noto families repeat Latin subsets Inter already covers; only their own script is kept.
  { pkg: 'noto-sans-arabic', family: FAMILY.arabic, weights: [400, 700], subsets: ['arabic'] },
  { pkg: 'noto-sans-hebrew', family: FAMILY.hebrew, weights: [400, 700], subsets: ['hebrew'] },
  { pkg: 'noto-sans-devanagari', family: FAMILY.devanagari, weights: [400, 700], subsets: ['devanagari'] },
  { pkg: 'noto-sans-thai', family: FAMILY.thai, weights: [400, 700], subsets: ['thai'] },
  ...SMALL_SCRIPTS.map((script) => ({
    pkg: `noto-sans-${script}`,
    family: FAMILY[script],
    weights: [400, 700],
    subsets: [script],
  })),
  { pkg: 'noto-sans-sc', family: FAMILY.sc, weights: [400, 700], subsets: 'numbered' },
  { pkg: 'noto-sans-jp', family: FAMILY.jp, weights: [400, 700], subsets: 'numbered' },
  { pkg: 'noto-sans-kr', family: FAMILY.kr, weights: [400, 700], subsets: 'numbered' },
];

/**
 * Subsets split a letter from a combining mark that has no precomposed form: Guaraní g̃ has its
 * `g` in the latin subset and U+0303 only in the vietnamese one. takumi shapes a cluster from one
 * face, so it drew a missing-glyph box for the letter. The complete Inter (inter-ui, the same
 * design; ~110 KB a weight) holds both and the mark positioning between them, and is tried after
 * every subset, so text the subsets cover draws exactly as before.
 */
const COMPLETE = {
  pkg: 'inter-ui',
  family: FAMILY.complete,
  // Every weight a template draws with: Inter's 400/600/800 and, for the serif titles, 700.
  files: { 400: 'Regular', 600: 'SemiBold', 700: 'Bold', 800: 'ExtraBold' },
} as const;

/**
 * Noto's two symbol families, after everything else so no character any other font draws
 * changes. Only their `symbols` subsets: the others repeat Latin and mathematical letters.
 * Noto Sans Symbols 2 has a single weight, so bold titles draw its symbols at 400.
 */
const SYMBOL_SPECS: readonly FamilySpec[] = [
  { pkg: 'noto-sans-symbols', family: FAMILY.symbols, weights: [400, 700], subsets: ['symbols'] },
  { pkg: 'noto-sans-symbols-2', family: FAMILY.symbols2, weights: [400], subsets: ['symbols'] },
];

/**
 * The fallback order handed to every render. It is explicit because takumi otherwise falls back
 * in registration order, and registration runs in parallel: an implicit order could change the
 * glyphs of a Han character between two processes and break the immutable ETag.
 */
export const FALLBACK_FAMILIES: readonly string[] = [
  ...SPECS.map((s) => s.family),
  COMPLETE.family,
  ...SYMBOL_SPECS.map((s) => s.family),
];

/** One font file to register. */
export interface FontFile {
  family: string;
  /** The @fontsource subset (`latin`, `119`), or `complete` for the whole Inter. */
  subset: string;
  weight: number;
  path: string;
  /** The subset's code points; undefined for a complete font (its own character map decides). */
  unicodeRange: [number, number][] | undefined;
  tier: FontTier;
}

let fontFiles: readonly FontFile[] | undefined;

/**
 * Lists the font files to register: each subset with its unicode.json range, then the complete
 * Inter. Computed once: registration and the glyph coverage both need it, and parsing the CJK
 * ranges (~8,000 a family) is most of its cost.
 */
export function listFontFiles(): readonly FontFile[] {
  fontFiles ??= Object.freeze(findFontFiles());
  return fontFiles;
}

function findFontFiles(): FontFile[] {
  const require = createRequire(import.meta.url);
  const files = SPECS.flatMap((spec) => subsetFiles(require, spec, 'text'));
  const complete = dirname(require.resolve(`${COMPLETE.pkg}/package.json`));
  for (const [weight, name] of Object.entries(COMPLETE.files)) {
    const path = join(complete, 'web', `Inter-${name}.woff2`);
    files.push({
      family: COMPLETE.family,
      subset: 'complete',
      weight: Number(weight),
      path,
      unicodeRange: undefined,
      tier: 'text',
    });
  }
  files.push(...SYMBOL_SPECS.flatMap((spec) => subsetFiles(require, spec, 'symbols')));
  return files;
}

/** The files of one @fontsource family: each wanted subset at each weight, with its range. */
function subsetFiles(require: NodeJS.Require, spec: FamilySpec, tier: FontTier): FontFile[] {
  const dir = dirname(require.resolve(`@fontsource/${spec.pkg}/unicode.json`));
  const ranges = JSON.parse(readFileSync(join(dir, 'unicode.json'), 'utf8')) as Record<string, string>;
  const subsets = Object.entries(ranges).flatMap(([key, range]) => {
    const numbered = key.startsWith('[');
    if (spec.subsets === 'numbered' && !numbered) return [];
    if (Array.isArray(spec.subsets) && !spec.subsets.includes(key)) return [];
    return [{ name: numbered ? key.slice(1, -1) : key, unicodeRange: parseUnicodeRange(range) }];
  });
  return spec.weights.flatMap((weight) =>
    subsets.map(({ name, unicodeRange }) => ({
      family: spec.family,
      subset: name,
      weight,
      // .woff (zlib) registers ~40% faster than .woff2 (brotli): 160 ms vs 300 ms for the CJK set.
      path: join(dir, 'files', `${spec.pkg}-${name}-${weight}-normal.woff`),
      unicodeRange,
      tier,
    })),
  );
}

/** Parses a CSS `unicode-range` value (`U+0000-00FF,U+0131`) into inclusive code point pairs. */
export function parseUnicodeRange(value: string): [number, number][] {
  return value
    .split(',')
    .map((part) => part.trim().replace(/^U\+/i, ''))
    .filter((part) => part !== '')
    .map((part) => {
      const [start = '', end] = part.split('-');
      if (start.includes('?')) {
        return [
          Number.parseInt(start.replace(/\?/g, '0'), 16),
          Number.parseInt(start.replace(/\?/g, 'f'), 16),
        ];
      }
      return [Number.parseInt(start, 16), Number.parseInt(end ?? start, 16)];
    });
}

/** Reads and registers every subset file at once; returns how many and how long it took. */
export async function registerFonts(renderer: Renderer): Promise<{ files: number; ms: number }> {
  const start = performance.now();
  const files = listFontFiles();
  // In parallel: takumi decodes on its own threads, so ~700 files take ~200 ms instead of ~700.
  await Promise.all(
    files.map(async (f) => {
      const data = await readFile(f.path);
      await renderer.registerFont({
        name: f.family,
        data,
        weight: f.weight,
        style: 'normal',
        ...(f.unicodeRange ? { unicodeRange: f.unicodeRange } : {}),
      });
    }),
  );
  return { files: files.length, ms: performance.now() - start };
}
