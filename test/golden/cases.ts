import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { DEFAULT_SIZE, SIZES } from '../../src/render/template/sizes.js';
import type {
  Artwork,
  BuildContext,
  CardSize,
  SizeName,
  TemplateFields,
} from '../../src/render/template/types.js';
import { type BuiltinName, TEMPLATE_NAMES, TEMPLATES } from '../helpers/builtins.js';
import { testTheme } from './theme.js';

/** The cases every template is drawn with; each has a golden image test/golden/<template>-<case>.png. */
export type CaseName = 'short' | 'long' | 'emoji' | 'cjk' | 'arabic' | 'mixed' | 'max' | 'artwork';

/** A 200-character title with ordinary words. */
export const TITLE_200 =
  'The complete guide to building fast, accessible and beautiful social cards for every page of your site: typography, layout, emoji, right-to-left scripts, caching, and what we learned shipping it all';

const SUBTITLE_300 = 'Every field at its maximum length, to prove the layout holds: '
  .concat(
    'long titles shrink step by step, then clamp with an ellipsis, and nothing leaves the card. '.repeat(4),
  )
  .slice(0, 300);
const BRAND_60 = 'The Extraordinarily Long Name of a Very Serious Publication!'.slice(0, 60);

const TEXT: Record<Exclude<CaseName, 'max' | 'artwork'>, Omit<TemplateFields, 'artwork'>> = {
  short: {
    title: 'How we cut cold starts by 80% with lazy fonts',
    subtitle: 'A deep dive into subsetting, unicode ranges and why woff beats woff2 at start-up.',
    brand: 'Acme Engineering',
  },
  long: { title: TITLE_200.slice(0, 200), brand: 'Acme Engineering' },
  emoji: {
    title: 'Launch day 🚀 our team 👩‍💻 ships from Tokyo 🇯🇵 thanks 👍🏽 #️⃣1️⃣',
    subtitle: 'Everything new this week ✨',
    brand: 'Acme 🚀',
  },
  cjk: {
    title: '我们如何将冷启动时间缩短百分之八十：延迟加载字体的实践',
    subtitle: '日本語のサブタイトル、そして한국어 부제목도 함께',
    brand: '東京テック',
  },
  arabic: {
    title: 'كيف قللنا وقت بدء التشغيل البارد بنسبة ثمانين بالمئة',
    subtitle: 'نظرة معمقة على تقسيم الخطوط ونطاقات يونيكود',
    brand: 'مدونة الهندسة',
  },
  // An RTL title over an LTR subtitle long enough to be cut: each paragraph keeps its own
  // direction, so the English ends with its ellipsis on the right.
  mixed: {
    title: 'كيف خفضنا وقت البناء',
    subtitle:
      'How we cut the build time of a large monorepo from twenty minutes to ninety seconds with a remote cache, a smarter task graph and a faster bundler that replaced the old one.',
    brand: 'Acme Engineering',
  },
};

/** The case names, in golden order. */
export const CASE_NAMES: readonly CaseName[] = [
  'short',
  'long',
  'emoji',
  'cjk',
  'arabic',
  'mixed',
  'max',
  'artwork',
];

/** Whether a template is drawn with a case (the artwork case only where artwork is drawn). */
export function hasCase(template: BuiltinName, name: CaseName): boolean {
  return name !== 'artwork' || TEMPLATES[template].uses.artwork;
}

/** One golden image: a template drawn with a case's copy at a size, with the test theme or not. */
export interface GoldenCase {
  template: BuiltinName;
  name: CaseName;
  size: SizeName;
  themed: boolean;
}

/** The cases drawn at every size besides og: short and long copy, an RTL title, artwork. */
const SIZE_CASES: readonly CaseName[] = ['short', 'long', 'arabic', 'artwork'];
const OTHER_SIZES: readonly SizeName[] = ['twitter', 'linkedin', 'square', 'story'];

/**
 * Every golden: og with every case (the goldens the designs started from), the other sizes with
 * `SIZE_CASES`, and each template themed at og (short copy: the logo takes the mark's place) and
 * at story (artwork where drawn).
 */
export function goldenCases(): GoldenCase[] {
  const cases: GoldenCase[] = [];
  for (const template of TEMPLATE_NAMES) {
    const add = (name: CaseName, size: SizeName, themed = false) => {
      if (hasCase(template, name)) cases.push({ template, name, size, themed });
    };
    for (const name of CASE_NAMES) add(name, 'og');
    for (const size of OTHER_SIZES) for (const name of SIZE_CASES) add(name, size);
    add('short', 'og', true);
    add(TEMPLATES[template].uses.artwork ? 'artwork' : 'short', 'story', true);
  }
  return cases;
}

/** A golden's render context: its size and, when themed, the test theme. */
export async function caseContext(c: Pick<GoldenCase, 'size' | 'themed'>): Promise<BuildContext> {
  return { size: SIZES[c.size], ...(c.themed ? { theme: await testTheme() } : {}) };
}

/** The fields of a case; artwork is generated at the template's artworkSize for `cardSize`. */
export async function caseFields(
  template: BuiltinName,
  name: CaseName,
  cardSize: CardSize = DEFAULT_SIZE,
): Promise<TemplateFields> {
  const size = TEMPLATES[template].artworkSize?.(cardSize);
  if (name === 'max') {
    const fields: TemplateFields = {
      title: TITLE_200.slice(0, 200),
      subtitle: SUBTITLE_300,
      brand: BRAND_60,
    };
    if (size) fields.artwork = await testArtwork(size.width, size.height);
    return fields;
  }
  if (name === 'artwork') {
    if (!size) throw new Error(`${template} draws no artwork`);
    return {
      title: 'Meet the new Aurora headphones',
      subtitle: '40-hour battery, spatial audio and a case that fits in your pocket.',
      brand: 'Acme Audio',
      artwork: await testArtwork(size.width, size.height),
    };
  }
  return { ...TEXT[name] };
}

/**
 * A deterministic test picture: a diagonal gradient with a soft disc, computed pixel by pixel so
 * it depends on no rasteriser version.
 */
export async function testArtwork(width: number, height: number): Promise<Artwork> {
  const px = Buffer.alloc(width * height * 3);
  const r = Math.min(width, height) / 3;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const t = (x / width + y / height) / 2;
      const inDisc = Math.hypot(x - width / 2, y - height / 2) < r;
      const i = (y * width + x) * 3;
      px[i] = inDisc ? 250 : Math.round(56 + 190 * t);
      px[i + 1] = inDisc ? 246 : Math.round(189 - 80 * t);
      px[i + 2] = inDisc ? 240 : Math.round(248 - 60 * t);
    }
  }
  const data = await sharp(px, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
  return { data, width, height };
}

/** The repository root, found from this file whether it runs from test/ or dist/test/. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('package.json not found above test/golden');
    dir = up;
  }
  return dir;
}

/**
 * Where a golden image lives: `<template>-<case>.png` at og, `<template>-<size>-<case>.png` at
 * other sizes, `-themed` before `.png` with the test theme.
 */
export function goldenPath(
  template: BuiltinName,
  name: CaseName,
  size: SizeName = 'og',
  themed = false,
): string {
  return join(repoRoot(), 'test', 'golden', `${goldenName({ template, name, size, themed })}.png`);
}

/** A golden's file name without `.png`. */
export function goldenName({ template, name, size, themed }: GoldenCase): string {
  return [template, ...(size === 'og' ? [] : [size]), name, ...(themed ? ['themed'] : [])].join('-');
}
