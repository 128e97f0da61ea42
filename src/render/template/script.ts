import { FAMILY } from './fonts.js';

/** Which way a paragraph runs. */
export type Direction = 'ltr' | 'rtl';

const RTL_CHAR = /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}]/u;
const STRONG_CHAR = /\p{L}/u;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const HANGUL = /\p{Script=Hangul}/u;

/**
 * The paragraph direction, decided like HTML's `dir="auto"`: by the first strong letter. A Hebrew
 * title that starts with a Latin brand name stays LTR, as a browser would show it.
 */
export function detectDirection(text: string): Direction {
  for (const ch of text) {
    if (ch === '\u200F' || RTL_CHAR.test(ch)) return 'rtl';
    if (ch === '\u200E') return 'ltr';
    if (STRONG_CHAR.test(ch)) return 'ltr';
  }
  return 'ltr';
}

/**
 * A `font-family` value: the design face first, then the Noto family for each script, then the
 * complete Inter for clusters no subset holds whole (a letter with a combining mark). Han
 * characters exist in all three CJK families with different regional shapes, so a text with
 * kana prefers the Japanese family and one with Hangul the Korean family; otherwise Chinese.
 */
export function fontStack(text: string, primary: string): string {
  const cjk = KANA.test(text)
    ? [FAMILY.jp, FAMILY.sc, FAMILY.kr]
    : HANGUL.test(text)
      ? [FAMILY.kr, FAMILY.sc, FAMILY.jp]
      : [FAMILY.sc, FAMILY.jp, FAMILY.kr];
  const families = [
    primary,
    ...(primary === FAMILY.sans ? [] : [FAMILY.sans]),
    ...cjk,
    FAMILY.arabic,
    FAMILY.hebrew,
    FAMILY.devanagari,
    FAMILY.thai,
    FAMILY.complete,
  ];
  return families.map((f) => `'${f}'`).join(', ');
}

const TALL_SCRIPT = /[\p{Script=Arabic}\p{Script=Devanagari}\p{Script=Thai}]/u;
const CJK_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * The line height a text needs: Arabic, Devanagari and Thai stack marks above and below the
 * letters and collide at Latin display leading; CJK reads cramped below 1.2.
 */
export function lineHeightFor(text: string, base: number): number {
  if (TALL_SCRIPT.test(text)) return Math.max(base + 0.2, 1.3);
  if (CJK_SCRIPT.test(text)) return Math.max(base, 1.2);
  return base;
}

const TRACKABLE =
  /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Common}\p{Script=Inherited}]*$/u;

/**
 * Display tracking only for alphabets drawn by the design faces. takumi (like browsers) does not
 * track joined Arabic, and tight tracking hurts Indic, Thai and CJK, so those get none, and the
 * width estimate must not count it either.
 */
export function letterSpacingFor(text: string, base: number): number {
  return TRACKABLE.test(text) ? base : 0;
}
