import { graphemes } from '../../lib/graphemes.js';

/**
 * Where a fitted text is cut or broken besides the line breaker's own opportunities: the "…"
 * that ends a cut text, and the break points offered inside a word too long for any line.
 */

/**
 * What a cut text must not end with before its ellipsis: "breakers,…" and "guide:…" read as a
 * typo. Commas, colons, semicolons and dashes (Latin, CJK full-width and Arabic), spaces, and
 * the zero-width spaces of `offerBreaks`.
 */
const TRAILING = /[\s\u200b,:;\-‐‑‒–—―、，：；﹐﹑﹔﹕،؛]+$/u;

/** Han, kana and CJK punctuation: the text before the ellipsis is Chinese or Japanese. */
const HAN_OR_KANA = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]$/u;

/**
 * `kept` closed with an ellipsis. Chinese and Japanese set theirs on the middle of the line, not
 * on the baseline: "…" after Han was drawn by Inter (the first family, which has the glyph) low
 * like a Latin one, while "⋯" (U+22EF), which Inter lacks, comes from the Noto CJK face of the
 * text, whose dots sit at mid-height.
 */
export function withEllipsis(kept: string): string {
  const text = kept.replace(TRAILING, '');
  return text + (HAN_OR_KANA.test(text) ? '⋯' : '…');
}

/**
 * The longest prefix of `text` that `fits` with its ellipsis, cut at a space (or the zero-width
 * space between Thai, Lao, Khmer or Myanmar words) when one is near, found by bisection over
 * graphemes.
 */
export function truncate(text: string, fits: (cut: string) => boolean): string {
  const parts = graphemes(text);
  let lo = 0;
  let hi = parts.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(withEllipsis(parts.slice(0, mid).join('')))) lo = mid;
    else hi = mid - 1;
  }
  let cut = lo;
  const isSpace = (part: string | undefined) => part === ' ' || part === '\u200b';
  if (!isSpace(parts[cut])) {
    const space = parts.findLastIndex((part, i) => i < cut && isSpace(part));
    if (space > 0 && cut - space < 24) cut = space;
  }
  return withEllipsis(parts.slice(0, cut).join(''));
}

/** Characters after which a URL or path reads well broken: "example.com/ | docs/getting- | started". */
const SEPARATOR = /[/?&.-]/u;

/**
 * `text` with a zero-width space after each separator (a run of them, as in "https://", counts
 * once) inside the words `tooWide` says no line holds. takumi would otherwise break such a word
 * wherever the line ends ("example.c | om"); the zero-width space gives its line breaker a better
 * place and draws nothing. Words that fit are left alone.
 */
export function offerBreaks(text: string, tooWide: (word: string) => boolean): string {
  return text
    .split(' ')
    .map((word) => {
      if (!SEPARATOR.test(word) || !tooWide(word)) return word;
      const chars = [...word];
      return chars
        .map((ch, i) => {
          const next = chars[i + 1];
          return SEPARATOR.test(ch) && next !== undefined && !SEPARATOR.test(next) ? `${ch}\u200b` : ch;
        })
        .join('');
    })
    .join(' ');
}
