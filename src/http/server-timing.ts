/**
 * Formats phase durations as a Server-Timing header value (`render;dur=8.1, …`). A description
 * for a phase that also has a duration is written on the same metric, so each name appears once.
 */
export function serverTiming(
  timings: Record<string, number | undefined>,
  descriptions: Record<string, string> = {},
): string {
  const names = new Set([...Object.keys(timings), ...Object.keys(descriptions)]);
  const parts: string[] = [];
  for (const name of names) {
    const ms = timings[name];
    const desc = descriptions[name];
    let part = name;
    if (ms !== undefined) part += `;dur=${ms.toFixed(1)}`;
    if (desc !== undefined) part += `;desc="${desc}"`;
    if (ms !== undefined || desc !== undefined) parts.push(part);
  }
  return parts.join(', ');
}
