/**
 * `cache;dur=0.1, render;dur=8.2;desc="x"` → `{ cache: 0.1, render: 8.2 }` (entries without a
 * duration are left out), as a client reads an answer's header. The service itself never parses
 * its own header back: the log line reads `req.timings` (src/http/timings.ts).
 */
export function parseServerTiming(header: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().split(';');
    const dur = params.find((p) => p.trim().startsWith('dur='));
    if (!name || !dur) continue;
    const value = Number(dur.trim().slice(4));
    if (Number.isFinite(value)) out[name.trim()] = value;
  }
  return out;
}
