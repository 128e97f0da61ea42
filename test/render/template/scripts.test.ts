import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFontFiles } from '../../../src/render/template/fonts.js';
import { createTemplateRenderer, type TemplateRenderer } from '../../../src/render/template/renderer.js';
import { decode, diffPixels, type Rgba } from './pixels.js';

/** A few distinct characters per script; each must draw a real glyph. */
const SAMPLES: Record<string, string> = {
  latin: 'Aéßŋ',
  cyrillic: 'ЖщЯї',
  greek: 'ΩλΞά',
  chinese: '冷启动间',
  japanese: 'あカ語ン',
  korean: '한국어힣',
  arabic: 'عربيض',
  hebrew: 'שלוםא',
  devanagari: 'हिन्दी',
  thai: 'ภาษาไทย',
  emoji: '🚀👩‍💻🇯🇵👍🏽1️⃣',
};

/** Letter + combining mark sequences with no precomposed character (NFC keeps them apart). */
const COMBINING: Record<string, string> = {
  guarani: 'g\u0303G\u0303',
  lithuanian: 'j\u0301',
  tagalog: 'm\u0303',
};

/** Unassigned code points: whatever takumi draws for them is what a missing glyph looks like. */
const MISSING = ['\u0378', '\u0379'];

const graphemes = (s: string) =>
  [...new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(s)].map((g) => g.segment);

let renderer: TemplateRenderer;
const tofu: Rgba[] = [];
const draw = async (title: string) => decode((await renderer.render('blog', { title })).png);

beforeAll(async () => {
  renderer = await createTemplateRenderer();
  for (const ch of MISSING) tofu.push(await draw(ch));
});
afterAll(() => renderer.close());

describe('every script draws real glyphs, never tofu', () => {
  it('the missing-glyph renders agree with each other (so they are a fair reference)', () => {
    expect(diffPixels(tofu[0]!, tofu[1]!).count).toBe(0);
  });

  for (const [script, sample] of Object.entries(SAMPLES)) {
    it(`${script}: ${sample}`, async () => {
      for (const ch of graphemes(sample)) {
        const card = await draw(ch);
        const { count } = diffPixels(card, tofu[0]!);
        // A glyph changes hundreds of pixels at display size; tofu changes none.
        expect(count, `${script} ${JSON.stringify(ch)} looks like a missing glyph`).toBeGreaterThan(200);
      }
    });
  }

  // Letters with a combining mark that has no precomposed form: the letter lives in one subset
  // and the mark in another (g in latin, U+0303 and U+0301 in vietnamese), and a cluster is drawn
  // from one face. Against a missing glyph carrying the same mark, a real letter changes hundreds
  // of pixels; the split subsets drew exactly that box with the mark on it.
  for (const [language, sample] of Object.entries(COMBINING)) {
    it(`${language}: ${sample} draws the letter under its mark`, async () => {
      for (const ch of graphemes(sample)) {
        const boxWithMark = await draw(`${MISSING[0]}${ch.slice(1)}`);
        const { count } = diffPixels(await draw(ch), boxWithMark);
        expect(count, `${language} ${JSON.stringify(ch)} draws a box under its mark`).toBeGreaterThan(200);
      }
    });
  }

  it('every sample code point outside emoji is covered by a registered subset', () => {
    const ranges = listFontFiles().flatMap((f) => f.unicodeRange ?? []);
    const covered = (cp: number) => ranges.some(([a, b]) => cp >= a && cp <= b);
    for (const [script, sample] of Object.entries(SAMPLES)) {
      if (script === 'emoji') continue;
      for (const ch of sample)
        expect(covered(ch.codePointAt(0)!), `${script} U+${ch.codePointAt(0)!.toString(16)}`).toBe(true);
    }
  });
});
