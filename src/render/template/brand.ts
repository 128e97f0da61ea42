import type { Node } from '@takumi-rs/core';
import { FAMILY } from './fonts.js';
import type { ImageBag } from './nodes.js';
import { paragraph } from './text.js';

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

const LETTER_OR_DIGIT = /^[\p{L}\p{N}]/u;
const INVISIBLE = /^[\s\p{Cc}\p{Cf}]*$/u;

/**
 * A brand's monogram: its first letter or digit with its marks, upper-cased ("acme" → "A",
 * "東京" → "東", "\"Quoted\" Co" → "Q"): a badge showing a quote mark or a bullet reads as a
 * glitch. A brand with neither ("@@", "🚀") shows its first visible grapheme.
 */
export function brandInitial(brand: string): string {
  const parts = [...graphemes.segment(brand)].map((s) => s.segment);
  const initial = parts.find((p) => LETTER_OR_DIGIT.test(p)) ?? parts.find((p) => !INVISIBLE.test(p));
  if (initial === undefined) return '';
  const upper = initial.toLocaleUpperCase('en');
  // "ß" upper-cases to "SS": a monogram keeps one letter.
  return [...upper].length === [...initial].length ? upper : initial;
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
  const text = spec.upperCase ? brand.toLocaleUpperCase('en') : brand;
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
