import type { MeasuredFace } from '../render/text/measured-face.js';
import type { FaceKey } from '../render/text/text-metrics.js';

/**
 * The advance widths a font check read (probe.ts), kept with the font so laying out a card never
 * parses a font file: code points ascending, widths in thousandths of an em at the default
 * instance, and for a variable font how much wider it sets at 400 and 800 (measured by takumi).
 */
export interface FaceMetrics {
  codePoints: Uint32Array;
  widths: Uint16Array;
  /** The default instance's weight and the `wght` range ([w, w] for a static font). */
  weight: number;
  weightRange: [number, number];
  scales: Record<number, number>;
}

/** Serialises metrics for the database (a few bytes a code point). */
export function encodeMetrics(m: FaceMetrics): Buffer {
  return Buffer.from(
    JSON.stringify({
      v: 1,
      cps: Buffer.from(m.codePoints.buffer, m.codePoints.byteOffset, m.codePoints.byteLength).toString(
        'base64',
      ),
      widths: Buffer.from(m.widths.buffer, m.widths.byteOffset, m.widths.byteLength).toString('base64'),
      weight: m.weight,
      weightRange: m.weightRange,
      scales: m.scales,
    }),
  );
}

/** Reads what encodeMetrics wrote. */
export function decodeMetrics(data: Buffer): FaceMetrics {
  const j = JSON.parse(data.toString('utf8')) as {
    cps: string;
    widths: string;
    weight: number;
    weightRange: [number, number];
    scales: Record<number, number>;
  };
  const cps = Buffer.from(j.cps, 'base64');
  const widths = Buffer.from(j.widths, 'base64');
  return {
    codePoints: new Uint32Array(new Uint8Array(cps).buffer),
    widths: new Uint16Array(new Uint8Array(widths).buffer),
    weight: j.weight,
    weightRange: j.weightRange,
    scales: j.scales,
  };
}

/** Whether the font maps `cp` (binary search over its code points). */
export function indexOf(m: FaceMetrics, cp: number): number {
  let lo = 0;
  let hi = m.codePoints.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = m.codePoints[mid]!;
    if (at === cp) return mid;
    if (at < cp) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * How much wider than its default instance a face sets at `weight`: 1 for a static font; for a
 * variable one, linear between the measured points (default = 1, 400, 800), clamped to its axis.
 */
export function widthScale(m: FaceMetrics, weight: number): number {
  if (m.weightRange[0] === m.weightRange[1]) return 1;
  const w = Math.min(m.weightRange[1], Math.max(m.weightRange[0], weight));
  const points = [
    [m.weight, 1] as const,
    ...Object.entries(m.scales).map(([k, v]) => [Number(k), v] as const),
  ]
    .filter(([at]) => at >= m.weightRange[0] && at <= m.weightRange[1])
    .sort((a, b) => a[0] - b[0]);
  const first = points[0]!;
  const last = points.at(-1)!;
  if (w <= first[0]) return first[1];
  if (w >= last[0]) return last[1];
  for (let i = 1; i < points.length; i++) {
    const [x1, y1] = points[i]!;
    const [x0, y0] = points[i - 1]!;
    if (w <= x1) return x1 === x0 ? y1 : y0 + ((y1 - y0) * (w - x0)) / (x1 - x0);
  }
  return 1;
}

/** A face for the fitter: this font's widths at `weight`, `fallback`'s tables for the rest. */
export function measuredFace(key: string, m: FaceMetrics, weight: number, fallback: FaceKey): MeasuredFace {
  const scale = widthScale(m, weight);
  return {
    key: `${key}@${weight}`,
    fallback,
    width(cp) {
      const i = indexOf(m, cp);
      return i < 0 ? undefined : (m.widths[i]! / 1000) * scale;
    },
  };
}
