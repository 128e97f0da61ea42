import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTemplateRenderer, type TemplateRenderer } from '../../../src/render/template/renderer.js';
import { parseTemplateRequest } from '../../../src/render/template/request.js';
import { splitEmoji } from '../../../src/render/text/emoji.js';
import { listFontFiles } from '../../../src/render/text/fonts.js';
import { BUILTINS, type BuiltinName } from '../../helpers/builtins.js';
import { sharedEngine } from '../../helpers/engine.js';
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
  armenian: 'Հայերեն',
  georgian: 'ქართული',
  ethiopic: 'አማርኛ',
  bengali: 'বাংলা',
  gurmukhi: 'ਪੰਜਾਬੀ',
  gujarati: 'ગુજરાતી',
  tamil: 'தமிழ்',
  telugu: 'తెలుగు',
  kannada: 'ಕನ್ನಡ',
  malayalam: 'മലയാളം',
  sinhala: 'සිංහල',
  lao: 'ພາສາລາວ',
  myanmar: 'မြန်မာ',
  khmer: 'ខ្មែរ',
  // Dingbats, arrows and shapes only the last-resort symbol fonts draw.
  symbols: '✘☐☒➜➔➤✦✧☰⚑❧☛✎',
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

/**
 * Characters whose default presentation is text, sent without U+FE0F, that no text font draws
 * (only the last-resort symbol fonts): each used to be a missing-glyph box and must be the emoji.
 */
const TEXT_DEFAULT_EMOJI = ['✔', '☺', '✌', '✳', '✈', '✏', '☑', 'ℹ', '⌨', '🌡'];

/** Text-default characters a registered font does draw: they must stay text. */
const TEXT_SYMBOLS = ['#', '*', '1', '©', '®', '™', '↔', '❤', '★', '☀'];

/** Scripts and characters no registered font draws: refused by the request, never drawn as boxes. */
const UNDRAWABLE: Record<string, string> = {
  tibetan: 'ༀ',
  cherokee: 'Ꭰ',
  'CJK Extension B': '𠀀',
  'a mark no font holds under its letter': 'x\u0331',
};

const TEMPLATES: readonly BuiltinName[] = ['blog', 'product', 'saas'];

let renderer: TemplateRenderer;
const tofu: Rgba[] = [];
const draw = async (title: string, template: BuiltinName = 'blog') =>
  decode((await renderer.render(template, { title })).png);

beforeAll(async () => {
  renderer = await createTemplateRenderer(undefined, await sharedEngine());
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

  // Bengali ra-phala (র after a hasanta under a consonant) is a below-base form; a ZWNJ after the
  // hasanta asks for the explicit, visible hasanta instead. The two must look different: with
  // Noto Sans Bengali 3.x under takumi they were the same (the hasanta was always visible).
  it('bengali: প্র draws the ra-phala, not a visible hasanta (প্‌র)', async () => {
    for (const [conjunct, explicit] of [
      ['প্র', 'প্\u200cর'],
      ['ক্র', 'ক্\u200cর'],
      ['দ্রু', 'দ্\u200cরু'],
    ]) {
      const { count } = diffPixels(await draw(conjunct!), await draw(explicit!));
      expect(count, `${conjunct} is drawn like ${explicit}`).toBeGreaterThan(200);
    }
  });

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

describe('text-default emoji without U+FE0F', () => {
  for (const template of TEMPLATES) {
    it(`${template}: draws ${TEXT_DEFAULT_EMOJI.join(' ')} as emoji, not boxes`, async () => {
      const box = await draw(MISSING[0]!, template);
      for (const ch of TEXT_DEFAULT_EMOJI) {
        const { count } = diffPixels(await draw(ch, template), box);
        expect(count, `${template} ${ch} looks like a missing glyph`).toBeGreaterThan(200);
      }
    });
  }

  it('draws ☺ in twemoji yellow (an image, not a monochrome glyph)', async () => {
    const card = await draw('☺', 'saas');
    let yellow = 0;
    for (let i = 0; i < card.data.length; i += 4) {
      const [r, g, b] = [card.data[i]!, card.data[i + 1]!, card.data[i + 2]!];
      if (r > 220 && g > 170 && b < 90) yellow++;
    }
    expect(yellow).toBeGreaterThan(500);
  });

  it('keeps characters a registered font draws as text: #, digits, ©, ®, ™, ↔, ❤, ★, ☀', async () => {
    for (const ch of TEXT_SYMBOLS)
      expect(splitEmoji(`a ${ch}`), ch).toEqual([{ kind: 'text', text: `a ${ch}` }]);
    // With U+FE0F the same character is the emoji image, so the text glyph is really a different drawing.
    const { count } = diffPixels(await draw('©'), await draw('©\uFE0F'));
    expect(count).toBeGreaterThan(200);
  });
});

describe('text no font draws is refused, because it would be drawn as boxes', () => {
  for (const [what, sample] of Object.entries(UNDRAWABLE)) {
    it(`${what}: ${sample}`, async () => {
      expect(() =>
        parseTemplateRequest({ template: 'blog', title: `Title ${sample}` }, 'body', undefined, BUILTINS),
      ).toThrow(/^title contains characters no font here can draw \(they would be boxes\): "/);
    });
  }

  it('the refusal is honest: those characters really draw as missing-glyph boxes', async () => {
    for (const ch of ['ༀ', 'Ꭰ', '𝐀']) expect(diffPixels(await draw(ch), tofu[0]!).count, ch).toBe(0);
  });

  it('every script sample passes the same check', () => {
    for (const [script, sample] of Object.entries({ ...SAMPLES, ...COMBINING })) {
      expect(
        () => parseTemplateRequest({ template: 'saas', title: sample }, 'body', undefined, BUILTINS),
        script,
      ).not.toThrow();
    }
  });
});
