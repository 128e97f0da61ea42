/** The numbers in imageUrl error messages, written the way the config spells them. */

function trim(n: number): string {
  return String(Number(n.toFixed(1)));
}

/** "800 ms" below a second, else seconds with at most one decimal. */
export function formatSeconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${trim(ms / 1000)} s`;
}

/** 10 MiB and 10,000,000 bytes both read "10 MB": the config counts decimal, callers may not. */
export function formatMegabytes(n: number): string {
  const MiB = 1024 * 1024;
  if (n % MiB === 0) return `${n / MiB} MB`;
  if (n >= 100_000) return `${trim(n / 1e6)} MB`;
  return `${trim(n / 1000)} kB`;
}

/** Pixels as megapixels, at most one decimal. */
export function formatMegapixels(n: number): string {
  return trim(n / 1e6);
}
