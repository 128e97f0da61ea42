import type { FaceKey } from './text-metrics.js';

/**
 * A face whose advance widths were read from the font file itself (an uploaded or operator font):
 * the fitter measures with them instead of the bundled tables, so text set in that font fits its
 * box. A code point the font lacks is drawn by a bundled fallback (Noto), so it is measured with
 * `fallback`'s tables.
 */
export interface MeasuredFace {
  /** Identifies the font and weight (content hash), for caches keyed by face. */
  key: string;
  /** The bundled face whose tables measure what this font does not draw. */
  fallback: FaceKey;
  /** Advance of `cp` in em at this face's weight; undefined when the font has no glyph for it. */
  width(cp: number): number | undefined;
}

/** What a fit box may name: a bundled face or a measured one. */
export type AnyFace = FaceKey | MeasuredFace;

/** The bundled face a box falls back to. */
export function baseFace(face: AnyFace): FaceKey {
  return typeof face === 'string' ? face : face.fallback;
}
