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

/** The Noto family for each script besides CJK, in fallback order. */
const SCRIPT_FAMILIES: readonly (readonly [RegExp, string])[] = [
  [/\p{Script=Arabic}/u, FAMILY.arabic],
  [/\p{Script=Hebrew}/u, FAMILY.hebrew],
  [/\p{Script=Devanagari}/u, FAMILY.devanagari],
  [/\p{Script=Thai}/u, FAMILY.thai],
  [/\p{Script=Armenian}/u, FAMILY.armenian],
  [/\p{Script=Georgian}/u, FAMILY.georgian],
  [/\p{Script=Ethiopic}/u, FAMILY.ethiopic],
  [/\p{Script=Bengali}/u, FAMILY.bengali],
  [/\p{Script=Gurmukhi}/u, FAMILY.gurmukhi],
  [/\p{Script=Gujarati}/u, FAMILY.gujarati],
  [/\p{Script=Tamil}/u, FAMILY.tamil],
  [/\p{Script=Telugu}/u, FAMILY.telugu],
  [/\p{Script=Kannada}/u, FAMILY.kannada],
  [/\p{Script=Malayalam}/u, FAMILY.malayalam],
  [/\p{Script=Sinhala}/u, FAMILY.sinhala],
  [/\p{Script=Lao}/u, FAMILY.lao],
  [/\p{Script=Myanmar}/u, FAMILY.myanmar],
  [/\p{Script=Khmer}/u, FAMILY.khmer],
];

/**
 * A `font-family` value: the design face first, then the Noto family for each script, then the
 * complete Inter for clusters no subset holds whole (a letter with a combining mark). Han
 * characters exist in all three CJK families with different regional shapes, so a text with
 * kana prefers the Japanese family and one with Hangul the Korean family; otherwise Chinese.
 * Likewise the families of the scripts a text uses come before the other scripts': the Indic
 * families share the danda (।) and a few signs, which must come from the text's own face.
 */
export function fontStack(text: string, primary: string): string {
  const cjk = KANA.test(text)
    ? [FAMILY.jp, FAMILY.sc, FAMILY.kr]
    : HANGUL.test(text)
      ? [FAMILY.kr, FAMILY.sc, FAMILY.jp]
      : [FAMILY.sc, FAMILY.jp, FAMILY.kr];
  const own = SCRIPT_FAMILIES.filter(([script]) => script.test(text)).map(([, family]) => family);
  const others = SCRIPT_FAMILIES.map(([, family]) => family).filter((family) => !own.includes(family));
  const families = [
    primary,
    ...(primary === FAMILY.sans ? [] : [FAMILY.sans]),
    ...own,
    ...cjk,
    ...others,
    FAMILY.complete,
  ];
  return families.map((f) => `'${f}'`).join(', ');
}

/**
 * Scripts that stack vowel signs, subscript consonants or medials above and below the letters:
 * at Latin display leading the marks of one line collide with the next. Armenian, Georgian and
 * Ethiopic keep Latin-like proportions and keep the design's leading.
 */
const TALL_SCRIPT =
  /[\p{Script=Arabic}\p{Script=Devanagari}\p{Script=Thai}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}\p{Script=Lao}\p{Script=Myanmar}\p{Script=Khmer}]/u;
/** Stacks two or three marks deep (Myanmar medials under a consonant, Khmer subscripts). */
const TALLEST_SCRIPT = /[\p{Script=Myanmar}\p{Script=Khmer}]/u;
const CJK_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * In NFD, a capital with a mark above (É Ẩ Ở Й Ά) or any letter with two (ầ ế ễ): they reach well
 * above the cap height, into the descenders and commas of the line above. The class holds the
 * marks drawn above a letter (grave to hook, ring, caron, …), not the horn or marks below.
 */
const TALL_ACCENT =
  /\p{Lu}\p{M}*[\u0300-\u0315\u033d-\u0344]|\p{L}\p{M}*[\u0300-\u0315\u033d-\u0344]\p{M}*[\u0300-\u0315\u033d-\u0344]/u;

/**
 * The line height a text needs: stacked scripts collide at Latin display leading (Myanmar and
 * Khmer still touched between lines at 1.3 on the blog and saas titles); so did Vietnamese
 * stacked accents at the product and saas titles' 1.06–1.08; CJK reads cramped below 1.2.
 */
export function lineHeightFor(text: string, base: number): number {
  if (TALLEST_SCRIPT.test(text)) return Math.max(base + 0.35, 1.45);
  if (TALL_SCRIPT.test(text)) return Math.max(base + 0.2, 1.3);
  if (CJK_SCRIPT.test(text)) return Math.max(base, 1.2);
  if (TALL_ACCENT.test(text.normalize('NFD'))) return Math.max(base, 1.25);
  return base;
}

const HANGUL_LETTER = /\p{Script=Hangul}/gu;
const HAN_LETTER = /\p{Script=Han}/gu;

/**
 * Whether lines break at spaces only (CSS `word-break: keep-all`): Korean text, as Korean
 * typography sets it, since takumi otherwise breaks between any two Hangul syllables ("방 | 법").
 * Chinese and Japanese have no spaces to break at, and keep-all stops takumi breaking between
 * their characters too, so a text with kana, or more Han than Hangul, keeps the default.
 */
export function keepsWordsWhole(text: string): boolean {
  const hangul = text.match(HANGUL_LETTER)?.length ?? 0;
  if (hangul === 0 || KANA.test(text)) return false;
  return hangul > (text.match(HAN_LETTER)?.length ?? 0);
}

const SPACELESS = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Myanmar}\p{Script=Khmer}]/u;
const SPACELESS_END = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Myanmar}\p{Script=Khmer}]$/u;
const SPACELESS_START = /^[\p{Script=Thai}\p{Script=Lao}\p{Script=Myanmar}\p{Script=Khmer}]/u;
/** A piece of at most three code points ending in the Thai karan (์): a syllable's tail, "วด์". */
const THAI_TAIL = /^.{1,2}\u0e4c$/u;
/**
 * ICU's word dictionaries: they are chosen by the script of the text, so one segmenter serves
 * Thai, Lao, Khmer and Myanmar alike.
 */
const WORDS = new Intl.Segmenter('th', { granularity: 'word' });

/**
 * `text` with a zero-width space between the words of Thai, Lao, Khmer and Myanmar runs, found
 * by Node's ICU dictionaries. These scripts write no spaces between words and takumi has no
 * dictionary, so it broke a long run wherever the line ended ("คลา | วด์"); the zero-width spaces
 * give its line breaker (and the fitter, and the cutter) word boundaries to use and draw
 * nothing. A loanword ICU does not know comes back in pieces, and a piece that is only a
 * silenced tail ("คลา|วด์" for "คลาวด์", cloud) stays with the syllable before it.
 */
export function markWordBreaks(text: string): string {
  if (!SPACELESS.test(text)) return text;
  let out = '';
  let prev = '';
  for (const { segment } of WORDS.segment(text)) {
    if (SPACELESS_END.test(prev) && SPACELESS_START.test(segment) && !THAI_TAIL.test(segment))
      out += '\u200b';
    out += segment;
    prev = segment;
  }
  return out;
}

/**
 * Whether a text's Hangul words must be kept whole by keep-all spans around them alone: Korean
 * with as much Han as Hangul (or more), where keep-all on the whole paragraph would also stop
 * takumi breaking between the Han characters, so it kept the default and split "서 | 울".
 */
export function keepsHangulWhole(text: string): boolean {
  return HANGUL.test(text) && !KANA.test(text) && !keepsWordsWhole(text);
}

/** `text` cut into runs of Hangul and the rest, in order. */
export function hangulRuns(text: string): string[] {
  return text.split(/(\p{Script=Hangul}+)/u).filter((run) => run !== '');
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
