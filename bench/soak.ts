/**
 * Soak (issue 16 §5; not a CI test): N minutes of mixed traffic at a fixed concurrency against
 * a Cardshot server this script starts (built dist/, production mode, real Chromium), with
 * local fixture pages (test/helpers/pages.ts) on 127.0.0.1 as the screenshot targets.
 *
 * Mix per request (weighted at random): uncached cards (a new title each time), cached cards
 * (five titles over and over), screenshots of plain fixture pages (mostly repeats: cache hits),
 * screenshots of hostile fixture pages (a script that never returns, an image that never
 * finishes, a tab that eats memory until it crashes, a page that reloads itself, dialogs,
 * pop-ups, a download, a 100,000 px page) and bad requests (no key, unknown template, a
 * non-http URL, malformed JSON, an unknown route).
 *
 * Every minute: requests, statuses, p50/p99 latency, the node process's RSS, the memory
 * cache's bytes (from /metrics), Chromium processes, open file descriptors of the node process.
 *
 * Verdict:
 * - no 500 ever, and no 5xx other than the documented 502 (only for hostile pages: a page
 *   that crashed its tab or could not be captured), 503 (busy) and 504 (page too slow);
 * - flat: RSS of the second half at most 10 % + 32 MiB above the first half's peak beyond what
 *   the memory cache grew meanwhile (a cache filling to its cap is not a leak, and is reported
 *   apart); the Chromium process count and open fds of the last minute at most the first
 *   half's peak (fds + 16 for sockets in flight).
 *
 * Usage: npm run bench:soak -- [--minutes 10] [--concurrency 8]
 * Exit status 1 when the verdict fails.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startPageServer } from '../test/helpers/pages.js';
import { chromiumOf } from './lib/chromium.js';
import { startServer } from './lib/server.js';
import { percentile } from './lib/stats.js';

const root = path.resolve(import.meta.dirname, '../..');
const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '8' },
  },
});
const MINUTES = Number(args.minutes);
const CONCURRENCY = Number(args.concurrency);
if (!(MINUTES > 0) || !(CONCURRENCY >= 1)) throw new Error('--minutes and --concurrency must be positive');
const TOKEN = 'soak-metrics-token-0123456789abcdef';

type Kind = 'card-new' | 'card-cached' | 'shot' | 'shot-hostile' | 'bad';
const MIX: Array<[Kind, number]> = [
  ['card-new', 25],
  ['card-cached', 30],
  ['shot', 20],
  ['shot-hostile', 10],
  ['bad', 15],
];
const PLAIN_PAGES = ['/split', '/wide', '/fluid', '/split-mobile', '/font'];
const HOSTILE_PAGES = [
  '/spin',
  '/spin-after-load',
  '/never',
  '/hog',
  '/reloads',
  '/dialog',
  '/popup',
  '/download',
  '/tall',
  '/moves?after=100',
  '/status/500',
  '/empty/404',
];

interface Sample {
  minute: number;
  kind: Kind;
  status: number;
  ms: number;
}
interface MinuteStats {
  rssMiB: number;
  memoryCacheMiB: number;
  chromium: number;
  fds: number;
}

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;
function pickKind(): Kind {
  let r = Math.random() * MIX.reduce((s, [, w]) => s + w, 0);
  for (const [k, w] of MIX) {
    r -= w;
    if (r < 0) return k;
  }
  return 'bad';
}

async function main(): Promise<void> {
  const pages = await startPageServer();
  const server = await startServer(path.join(root, 'dist/src/main.js'), {
    CARDSHOT_LOG_LEVEL: 'warn',
    CARDSHOT_ALLOW_PRIVATE_HOSTS: pages.hostPort,
    CARDSHOT_METRICS_TOKEN: TOKEN,
  });
  const samples: Sample[] = [];
  const minutes: MinuteStats[] = [];
  let uniq = 0;
  const started = Date.now();
  const end = started + MINUTES * 60_000;
  const minuteOf = () => Math.floor((Date.now() - started) / 60_000);

  const request = (kind: Kind): { url: string; init: RequestInit } => {
    const auth = server.auth;
    const shot = (page: string) =>
      `/render/url?${new URLSearchParams({ url: `${pages.url}${page}`, viewport: 'desktop' })}`;
    switch (kind) {
      case 'card-new':
        return {
          url: `/render/template?${new URLSearchParams({ template: 'blog', title: `Soak ${uniq++} ${Date.now()}` })}`,
          init: { headers: auth },
        };
      case 'card-cached':
        return {
          url: `/render/template?${new URLSearchParams({ template: 'saas', title: `Cached ${Math.floor(Math.random() * 5)}` })}`,
          init: { headers: auth },
        };
      case 'shot': {
        // One in five a new URL (a capture), the rest repeats (cache hits).
        const page = pick(PLAIN_PAGES);
        const sep = page.includes('?') ? '&' : '?';
        return {
          url: shot(Math.random() < 0.2 ? `${page}${sep}n=${uniq++}` : page),
          init: { headers: auth },
        };
      }
      case 'shot-hostile': {
        const page = pick(HOSTILE_PAGES);
        const sep = page.includes('?') ? '&' : '?';
        return { url: shot(`${page}${sep}n=${uniq++}`), init: { headers: auth } };
      }
      case 'bad':
        return pick([
          { url: '/render/template?template=blog&title=No%20key', init: {} },
          { url: '/render/template?template=nope&title=x', init: { headers: auth } },
          {
            url: `/render/url?${new URLSearchParams({ url: 'ftp://example.com/' })}`,
            init: { headers: auth },
          },
          {
            url: '/render/template',
            init: {
              method: 'POST',
              headers: { ...auth, 'content-type': 'application/json' },
              body: '{"template":',
            },
          },
          { url: '/no/such/route', init: { headers: auth } },
        ]);
    }
  };

  const worker = async () => {
    while (Date.now() < end) {
      const kind = pickKind();
      const { url, init } = request(kind);
      const t0 = performance.now();
      let status: number;
      try {
        const res = await fetch(`${server.url}${url}`, { ...init, signal: AbortSignal.timeout(60_000) });
        await res.arrayBuffer();
        status = res.status;
      } catch {
        status = 0; // no answer at all (connection reset, 60 s without an answer)
      }
      samples.push({ minute: minuteOf(), kind, status, ms: performance.now() - t0 });
    }
  };

  const memoryCacheMiB = async () => {
    const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const text = await res.text();
    const m = /^cardshot_cache_bytes\{tier="memory"\} (\S+)$/m.exec(text);
    return m ? Number(m[1]) / 2 ** 20 : Number.NaN;
  };
  const sample = async () => {
    minutes.push({
      rssMiB: server.memory().rssMiB,
      memoryCacheMiB: await memoryCacheMiB().catch(() => Number.NaN),
      chromium: chromiumOf(server.pid).processes,
      fds: readdirSync(`/proc/${server.pid}/fd`).length,
    });
    report(minutes.length - 1);
  };

  const report = (minute: number) => {
    const s = samples.filter((x) => x.minute === minute);
    const statuses = new Map<number, number>();
    for (const x of s) statuses.set(x.status, (statuses.get(x.status) ?? 0) + 1);
    const ms = s.map((x) => x.ms).sort((a, b) => a - b);
    const m = minutes[minute]!;
    const st = [...statuses].sort(([a], [b]) => a - b).map(([k, v]) => `${k}:${v}`);
    process.stdout.write(
      `min ${String(minute + 1).padStart(2)}  req ${String(s.length).padStart(5)}  p50 ${percentile(ms, 50).toFixed(1).padStart(7)} ms  p99 ${percentile(ms, 99).toFixed(0).padStart(6)} ms  rss ${m.rssMiB.toFixed(0)} MiB  mem-cache ${m.memoryCacheMiB.toFixed(1)} MiB  chromium ${m.chromium}  fds ${m.fds}  statuses ${st.join(' ')}\n`,
    );
  };

  process.stdout.write(
    `soak: ${MINUTES} min at concurrency ${CONCURRENCY} against ${server.url} (pid ${server.pid}); fixture pages ${pages.url}\n`,
  );
  const ticker = setInterval(() => void sample(), 60_000);
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    clearInterval(ticker);
    // The last minute may have ended just after the ticker's last sample.
    while (minutes.length < MINUTES) await sample();
  } finally {
    clearInterval(ticker);
    await server.stop();
    await pages.close();
  }

  // Verdict.
  const problems: string[] = [];
  const allowed = (x: Sample) =>
    x.status > 0 &&
    (x.status < 500 ||
      x.status === 503 ||
      x.status === 504 ||
      (x.status === 502 && x.kind === 'shot-hostile'));
  const bad = samples.filter((x) => !allowed(x));
  if (bad.length > 0) {
    const byKind = new Map<string, number>();
    for (const x of bad) byKind.set(`${x.kind} ${x.status}`, (byKind.get(`${x.kind} ${x.status}`) ?? 0) + 1);
    problems.push(`unexpected answers: ${[...byKind].map(([k, v]) => `${k} ×${v}`).join(', ')}`);
  }
  const half = Math.max(1, Math.floor(minutes.length / 2));
  const first = minutes.slice(0, half);
  const second = minutes.slice(half);
  if (second.length > 0) {
    const peak = (xs: MinuteStats[], f: (m: MinuteStats) => number) => Math.max(...xs.map(f));
    const cacheGrowth = Math.max(
      0,
      (peak(second, (m) => m.memoryCacheMiB) || 0) - (peak(first, (m) => m.memoryCacheMiB) || 0),
    );
    const rssLimit = peak(first, (m) => m.rssMiB) * 1.1 + 32 + cacheGrowth;
    const rssPeak = peak(second, (m) => m.rssMiB);
    if (rssPeak > rssLimit)
      problems.push(
        `RSS not flat: ${rssPeak.toFixed(0)} MiB in the second half > ${rssLimit.toFixed(0)} MiB`,
      );
    const last = minutes.at(-1)!;
    if (last.chromium > peak(first, (m) => m.chromium))
      problems.push(`Chromium processes grew: ${last.chromium} > ${peak(first, (m) => m.chromium)}`);
    if (last.fds > peak(first, (m) => m.fds) + 16)
      problems.push(`open fds grew: ${last.fds} > ${peak(first, (m) => m.fds)} + 16`);
    process.stdout.write(
      `memory cache grew ${cacheGrowth.toFixed(1)} MiB between the halves (cap CARDSHOT_CACHE_MEMORY_BYTES); RSS peak ${peak(first, (m) => m.rssMiB).toFixed(0)} → ${rssPeak.toFixed(0)} MiB\n`,
    );
  }
  const total = samples.length;
  const fivexx = samples.filter((x) => x.status >= 500).length;
  process.stdout.write(
    `${total} requests, ${fivexx} 5xx (${samples.filter((x) => x.status === 503).length} × 503, ${samples.filter((x) => x.status === 504).length} × 504, ${samples.filter((x) => x.status === 502).length} × 502), ${samples.filter((x) => x.status === 0).length} without an answer\n`,
  );
  process.stdout.write(
    problems.length === 0 ? 'verdict: PASS\n' : `verdict: FAIL\n- ${problems.join('\n- ')}\n`,
  );
  if (problems.length > 0) process.exitCode = 1;
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
