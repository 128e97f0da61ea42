import type { Node } from '@takumi-rs/core';
import { graphemes } from '../../lib/graphemes.js';
import { FAMILY } from '../text/fonts.js';
import type { ImageBag } from '../text/nodes.js';
import { paragraph } from '../text/text.js';

const LETTER_OR_DIGIT = /^[\p{L}\p{N}]/u;
/**
 * Thai and Lao vowels written before the consonant they follow in speech (เ แ โ ใ ไ, ເ ແ ໂ ໃ ໄ):
 * "ไทยเทค" is known by its "ท", not by a lone vowel.
 */
const LEADING_VOWEL = /^[\u0e40-\u0e44\u0ec0-\u0ec4]/u;
const GREEK = /\p{Script=Greek}/u;

/**
 * `text` in capitals by its language's rules: Greek drops the tonos in all caps ("Ελληνική" →
 * "ΕΛΛΗΝΙΚΗ", not "ΕΛΛΗΝΙΚΉ"), which only the Greek locale's mapping does.
 */
export function upperCased(text: string): string {
  return text.toLocaleUpperCase(GREEK.test(text) ? 'el' : 'en');
}
const INVISIBLE = /^[\s\p{Cc}\p{Cf}]*$/u;

/**
 * A brand's monogram: its first letter or digit with its marks, upper-cased ("acme" → "A",
 * "東京" → "東", "\"Quoted\" Co" → "Q"): a badge showing a quote mark or a bullet reads as a
 * glitch. A brand with neither ("@@", "🚀") shows its first visible grapheme.
 */
export function brandInitial(brand: string): string {
  const parts = graphemes(brand);
  const initial =
    parts.find((p) => LETTER_OR_DIGIT.test(p) && !LEADING_VOWEL.test(p)) ??
    parts.find((p) => LETTER_OR_DIGIT.test(p)) ??
    parts.find((p) => !INVISIBLE.test(p));
  if (initial === undefined) return '';
  const upper = upperCased(initial);
  // "ß" upper-cases to "SS": a monogram keeps one letter. "ǰ" becomes "J̌", two code points
  // but one letter, so graphemes are counted.
  const count = (t: string) => graphemes(t).length;
  return count(upper) === count(initial) ? upper : initial;
}

/** How a brand name is set on one line. */
export interface BrandLabelSpec {
  size: number;
  color: string;
  /** The widest the label may grow before it is cut with "…". */
  width: number;
  letterSpacing?: number;
  upperCase?: boolean;
}

/**
 * A brand name on one line, cut with "…" when too long. It goes through `paragraph` so RTL and
 * emoji brands get the same safe cutting as titles (takumi's own clamp fails on those).
 */
export function brandLabel(brand: string, spec: BrandLabelSpec, bag: ImageBag): Node {
  const text = spec.upperCase ? upperCased(brand) : brand;
  return paragraph(
    text,
    {
      // Inter 600 has no table of its own; the 800 widths are wider, so the estimate stays safe.
      box: {
        face: 'sans-800',
        steps: [[spec.size, 1]],
        width: spec.width,
        height: spec.size * 2,
        lineHeight: 1.2,
        letterSpacing: spec.letterSpacing ?? 0,
      },
      family: FAMILY.sans,
      weight: 600,
      color: spec.color,
      hug: true,
    },
    bag,
  ).node;
}
