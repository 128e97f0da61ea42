/**
 * The first line of an error's message, at most 300 characters: Playwright's errors carry the
 * browser's whole launch command and log after it, which one-line findings and log fields do
 * not want.
 */
export function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 300);
}
