import { type FaceMetrics, measuredFace } from '../../fonts/metrics.js';
import type { MeasuredFace } from './measured-face.js';
import type { FaceKey } from './text-metrics.js';

/**
 * The operator's fonts (CARDSHOT_FONTS_DIR) as the fitter measures them: set once at start by
 * fonts/operator.ts, read by template files through the SDK's `fontFace`. Read-only afterwards.
 */
interface OperatorFace {
  family: string;
  key: string;
  metrics: FaceMetrics;
}

let faces: readonly OperatorFace[] = [];

/** Replaces the operator faces (start-up). */
export function setOperatorFaces(list: readonly OperatorFace[]): void {
  faces = Object.freeze([...list]);
}

/** The operator families, for `templates check` and the docs. */
export function operatorFamilies(): string[] {
  return [...new Set(faces.map((f) => f.family))];
}

/**
 * The face the fitter should measure `family` at `weight` with: the operator font's own widths
 * when the operator installed that family (the face nearest the weight), else `fallback`.
 */
export function operatorFace(family: string, weight: number, fallback: FaceKey): FaceKey | MeasuredFace {
  const key = family.toLowerCase();
  const candidates = faces.filter((f) => f.family.toLowerCase() === key);
  if (candidates.length === 0) return fallback;
  const distance = (f: OperatorFace) =>
    weight < f.metrics.weightRange[0]
      ? f.metrics.weightRange[0] - weight
      : weight > f.metrics.weightRange[1]
        ? weight - f.metrics.weightRange[1]
        : 0;
  const best = candidates.reduce((a, b) => (distance(b) < distance(a) ? b : a));
  return measuredFace(best.key, best.metrics, weight, fallback);
}
