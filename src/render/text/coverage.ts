import { readFileSync } from 'node:fs';
import { cmapTable, mappedRanges, type Ranges } from './cmap.js';
import { type FontFile, listFontFiles } from './fonts.js';

/**
 * Which code points the registered fonts really draw: each file's character map (cmap) cut to the
 * `unicodeRange` it is registered with. Subset ranges alone are not enough: Google's script ranges
 * name code points a family does not have, and only the cmap tells. It decides two things a box
 * would otherwise decide silently: a text-default emoji (✔ ☺) with no glyph in a text font is
 * drawn as the emoji, and a request with text no font draws is refused before anything renders.
 *
 * Built once, synchronously, because text fitting and request parsing are synchronous: ~55-70 ms
 * of CPU for the ~370 faces (one weight each), most of it inflating the CJK slices' cmaps. The
 * renderer builds it at start-up so no request pays for it. Building it on the thread pool beside
 * font registration was tried and was no faster on 2 cores: both compete for the same threads.
 */

/**
 * Drawn code points as bitmaps (every font; the text fonts alone), and per face (one subset, any
 * weight) as sorted ranges.
 */
interface Coverage {
  union: Uint8Array;
  text: Uint8Array;
  faces: Ranges[];
}

let state: Coverage | undefined;

function coverage(): Coverage {
  state ??= buildCoverage();
  return state;
}

function has(bits: Uint8Array, cp: number): boolean {
  return cp >= 0 && cp <= 0x10ffff && (bits[cp >> 3]! & (1 << (cp & 7))) !== 0;
}

/** Whether some registered font has a glyph for `cp` within the range it is registered for. */
export function fontsDraw(cp: number): boolean {
  return has(coverage().union, cp);
}

/**
 * Whether a text font (not one of the last-resort symbol fonts) draws `cp`: what decides that a
 * text-default pictograph (✔ ☺) is shown as a colour emoji rather than a monochrome symbol.
 */
export function textFontsDraw(cp: number): boolean {
  return has(coverage().text, cp);
}

/**
 * Whether one face draws every code point of a cluster (a letter and its marks, an Indic
 * syllable): takumi shapes a cluster from a single face, so a mark one font has under a letter
 * only another font has is drawn as a box (x̱: Inter has no U+0331, Noto Sans Thai has no x).
 * Default-ignorable code points (joiners, variation selectors) take no glyph and are skipped.
 */
export function clusterDrawn(cluster: string): boolean {
  const points = [...cluster].filter((c) => !IGNORABLE.test(c)).map((c) => c.codePointAt(0)!);
  if (!points.every(fontsDraw)) return false;
  if (points.length <= 1) return true;
  return coverage().faces.some((face) => points.every((cp) => contains(face, cp)));
}

const IGNORABLE = /\p{Default_Ignorable_Code_Point}/u;

function contains(ranges: Ranges, cp: number): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [first, last] = ranges[mid]!;
    if (cp < first) hi = mid - 1;
    else if (cp > last) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Builds the coverage now (start-up) instead of on the first request; returns how long it took. */
export function warmCoverage(): number {
  const start = performance.now();
  coverage();
  return performance.now() - start;
}

function buildCoverage(): Coverage {
  const files = faceFiles();
  return combine(
    files,
    files.map((f) => cmapTable(readFileSync(f.path))),
  );
}

/** One file per face: a subset has the same cmap at every weight (checked by a test). */
function faceFiles(): FontFile[] {
  const seen = new Set<string>();
  return listFontFiles().filter((file) => {
    const key = `${file.family}|${file.subset}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function combine(files: FontFile[], cmaps: Buffer[]): Coverage {
  const union = new Uint8Array(0x110000 >> 3);
  const text = new Uint8Array(0x110000 >> 3);
  const faces = files.map((file, i) => {
    const mapped = mappedRanges(cmaps[i]!);
    const face = file.unicodeRange ? intersect(mapped, file.unicodeRange) : mapped;
    for (const [first, last] of face) {
      for (let cp = first; cp <= last; cp++) {
        union[cp >> 3]! |= 1 << (cp & 7);
        if (file.tier === 'text') text[cp >> 3]! |= 1 << (cp & 7);
      }
    }
    return face;
  });
  return { union, text, faces };
}

/** The overlap of two lists of inclusive ranges, sorted. */
function intersect(a: Ranges, b: readonly [number, number][]): Ranges {
  const sorted = [...b].sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  let j = 0;
  for (const [first, last] of a) {
    while (j < sorted.length && sorted[j]![1] < first) j++;
    for (let k = j; k < sorted.length && sorted[k]![0] <= last; k++) {
      const lo = Math.max(first, sorted[k]![0]);
      const hi = Math.min(last, sorted[k]![1]);
      if (lo <= hi) out.push([lo, hi]);
    }
  }
  return out;
}
