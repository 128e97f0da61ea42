import { percentile } from '../lib/stats.js';
import type { Kind } from './mix.js';

/** One answered (or unanswered: status 0) request. */
export interface Sample {
  tick: number;
  kind: Kind;
  status: number;
  ms: number;
}

/** The server's figures at one sampling tick, memory in MiB. */
export interface Tick {
  seconds: number;
  rss: number;
  rssAnon: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  /** libvips' operation cache (NaN when the probe could not reach sharp). */
  sharp: number;
  memoryCache: number;
  chromium: number;
  fds: number;
}

const MiB = (n: number) => n.toFixed(0).padStart(5);

/** The header of the per-tick table. */
export function header(): string {
  return '     t    req  p50 ms   p99 ms    rss   anon  heapU  heapT   ext  arrB  vips  mcache  chr  fds  statuses\n';
}

/** One line of the table: traffic since the previous tick and the memory at this one. */
export function line(tick: Tick, s: Sample[]): string {
  const statuses = new Map<number, number>();
  for (const x of s) statuses.set(x.status, (statuses.get(x.status) ?? 0) + 1);
  const ms = s.map((x) => x.ms).sort((a, b) => a - b);
  const st = [...statuses].sort(([a], [b]) => a - b).map(([k, v]) => `${k}:${v}`);
  const mm = `${Math.floor(tick.seconds / 60)}:${String(Math.floor(tick.seconds % 60)).padStart(2, '0')}`;
  return `${mm.padStart(6)} ${String(s.length).padStart(6)} ${percentile(ms, 50).toFixed(1).padStart(7)} ${percentile(ms, 99).toFixed(0).padStart(8)} ${MiB(tick.rss)}  ${MiB(tick.rssAnon)}  ${MiB(tick.heapUsed)}  ${MiB(tick.heapTotal)} ${MiB(tick.external)} ${MiB(tick.arrayBuffers)} ${MiB(tick.sharp)}  ${tick.memoryCache.toFixed(1).padStart(6)}  ${String(tick.chromium).padStart(3)}  ${String(tick.fds).padStart(3)}  ${st.join(' ')}\n`;
}

const peak = (xs: Tick[], f: (t: Tick) => number) => Math.max(...xs.map(f));

/**
 * The verdict's problems (none: PASS) and a summary of both halves.
 * - Only the documented 5xx: 503 (busy), 504 (page too slow), 502 for hostile pages.
 * - RSS levels off: the second half's peak at most the first half's × 1.1, plus what the memory
 *   cache grew between the halves (a cache filling to its cap is memory on purpose, not a leak).
 * - Chromium processes and open fds at the last tick at most the first half's peak (fds + 16 for
 *   sockets in flight).
 */
export function verdict(samples: Sample[], ticks: Tick[]): { problems: string[]; summary: string } {
  const problems: string[] = [];
  const allowed = (x: Sample) =>
    x.status > 0 &&
    (x.status < 500 ||
      x.status === 503 ||
      x.status === 504 ||
      (x.status === 502 && x.kind === 'shot-hostile'));
  const byKind = new Map<string, number>();
  for (const x of samples.filter((y) => !allowed(y)))
    byKind.set(`${x.kind} ${x.status}`, (byKind.get(`${x.kind} ${x.status}`) ?? 0) + 1);
  if (byKind.size > 0)
    problems.push(`unexpected answers: ${[...byKind].map(([k, v]) => `${k} ×${v}`).join(', ')}`);

  const lines: string[] = [];
  const half = Math.max(1, Math.floor(ticks.length / 2));
  const first = ticks.slice(0, half);
  const second = ticks.slice(half);
  if (second.length > 0) {
    const cacheGrowth = Math.max(
      0,
      (peak(second, (t) => t.memoryCache) || 0) - (peak(first, (t) => t.memoryCache) || 0),
    );
    const rss1 = peak(first, (t) => t.rss);
    const rss2 = peak(second, (t) => t.rss);
    const limit = rss1 * 1.1 + cacheGrowth;
    if (rss2 > limit)
      problems.push(
        `RSS did not level off: ${rss2.toFixed(0)} MiB in the second half > ${limit.toFixed(0)} MiB`,
      );
    const last = ticks.at(-1)!;
    if (last.chromium > peak(first, (t) => t.chromium))
      problems.push(`Chromium processes grew: ${last.chromium} > ${peak(first, (t) => t.chromium)}`);
    if (last.fds > peak(first, (t) => t.fds) + 16)
      problems.push(`open fds grew: ${last.fds} > ${peak(first, (t) => t.fds)} + 16`);
    const row = (name: string, f: (t: Tick) => number) =>
      `  ${name.padEnd(28)} ${peak(first, f).toFixed(0).padStart(6)} ${peak(second, f).toFixed(0).padStart(6)}  ×${(peak(second, f) / peak(first, f)).toFixed(3)}`;
    lines.push(
      'peaks (MiB)                   1st half  2nd half  ratio',
      row('RSS', (t) => t.rss),
      row('RSS anonymous', (t) => t.rssAnon),
      row('V8 heap used', (t) => t.heapUsed),
      row('V8 heap total', (t) => t.heapTotal),
      row('external (incl. arrayBuffers)', (t) => t.external),
      row('arrayBuffers', (t) => t.arrayBuffers),
      row('native: RSS − heap total', (t) => t.rss - t.heapTotal),
      row('libvips operation cache', (t) => t.sharp),
      row('memory cache', (t) => t.memoryCache),
      `RSS rule: ${rss2.toFixed(0)} ≤ ${rss1.toFixed(0)} × 1.1 + ${cacheGrowth.toFixed(1)} (memory cache growth) = ${limit.toFixed(0)} MiB`,
    );
  }
  const n = (f: (x: Sample) => boolean) => samples.filter(f).length;
  lines.push(
    `${samples.length} requests (${n((x) => x.kind.startsWith('card'))} cards), ${n((x) => x.status >= 500)} 5xx (${n((x) => x.status === 503)} × 503, ${n((x) => x.status === 504)} × 504, ${n((x) => x.status === 502)} × 502), ${n((x) => x.status === 0)} without an answer`,
  );
  return { problems, summary: `${lines.join('\n')}\n` };
}
