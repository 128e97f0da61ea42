/** Order statistics of one series of samples (milliseconds unless said otherwise). */
export interface Summary {
  n: number;
  min: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

/**
 * Nearest-rank percentile of an ascending array. Nearest rank rather than interpolation: every
 * quoted figure is a latency that really happened, and p99 of 200 samples is the 198th value.
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** Min, p50, p95, p99, max and mean of `samples` (not modified). */
export function summarize(samples: ArrayLike<number>): Summary {
  // A typed array sorts numerically and without boxing, which matters for 100k latencies.
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    n: sorted.length,
    min: sorted[0] ?? Number.NaN,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.length ? sum / sorted.length : Number.NaN,
  };
}
