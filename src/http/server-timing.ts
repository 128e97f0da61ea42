/** Formats phase durations as a Server-Timing header value (`render;dur=8.1, …`). */
export function serverTiming(
  timings: Record<string, number | undefined>,
  extra: Record<string, string> = {},
): string {
  const parts: string[] = [];
  for (const [name, ms] of Object.entries(timings)) {
    if (ms !== undefined) parts.push(`${name};dur=${ms.toFixed(1)}`);
  }
  for (const [name, desc] of Object.entries(extra)) parts.push(`${name};desc="${desc}"`);
  return parts.join(', ');
}
