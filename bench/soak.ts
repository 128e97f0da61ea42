/**
 * Soak (issues 16 §5 and 26 §5; not a CI test): N minutes of traffic at a fixed concurrency
 * against a Cardshot server this script starts as a child process (built dist/, production
 * mode, real Chromium), so the RSS it reads is the server's alone. Targets on 127.0.0.1 only:
 * the test suite's fixture pages (test/helpers/pages.ts) and a server of photo-sized artwork.
 *
 * Profiles (bench/soak/mix.ts): `mixed` (default: cards, screenshots of plain and hostile
 * pages, bad requests) and `cards` (cards at the full rate across templates, sizes, themes,
 * formats and `imageUrl` artwork, a few screenshots and bad requests).
 *
 * Every --sample-seconds: requests, statuses, p50/p99, and the server's memory beside its RSS:
 * RssAnon, V8 heap used/total, external and arrayBuffers, libvips' operation cache (from a
 * probe loaded with `node --import`, bench/soak/probe.ts), the memory cache's bytes (from
 * /metrics), Chromium processes and open fds. `kill -USR2 <pid>` writes a heap snapshot
 * beside the probe file (--keep-probe keeps that directory). At the end, when gdb can attach,
 * glibc's malloc_info and what malloc_trim(0) gives back (bench/soak/malloc.ts).
 *
 * Verdict (bench/soak/report.ts): only documented 5xx; RSS levels off (second-half peak ≤
 * first-half peak × 1.1 + the memory cache's growth); Chromium processes and fds flat.
 *
 * Usage: npm run bench:soak -- [--profile mixed|cards] [--minutes 10] [--concurrency 8]
 *        [--sample-seconds 15] [--json out.json] [--keep-probe] [--server-env NAME=VALUE …]
 * Exit status 1 when the verdict fails.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startPageServer } from '../test/helpers/pages.js';
import { chromiumOf } from './lib/chromium.js';
import { startServer } from './lib/server.js';
import { startArtworkServer } from './soak/artwork-server.js';
import { describeMalloc, type MallocReport, readMalloc } from './soak/malloc.js';
import { createRequests, type Kind, PROFILES, type Profile, pickKind } from './soak/mix.js';
import type { ProbeReading } from './soak/probe.js';
import { header, line, type Sample, type Tick, verdict } from './soak/report.js';

const root = path.resolve(import.meta.dirname, '../..');
const { values: args } = parseArgs({
  options: {
    profile: { type: 'string', default: 'mixed' },
    minutes: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '8' },
    'sample-seconds': { type: 'string', default: '15' },
    json: { type: 'string' },
    'keep-probe': { type: 'boolean', default: false },
    'server-env': { type: 'string', multiple: true, default: [] },
  },
});
const PROFILE = args.profile as Profile;
const MINUTES = Number(args.minutes);
const CONCURRENCY = Number(args.concurrency);
const EVERY = Number(args['sample-seconds']);
if (!(PROFILE in PROFILES)) throw new Error(`--profile must be one of ${Object.keys(PROFILES).join(', ')}`);
if (!(MINUTES > 0) || !(CONCURRENCY >= 1) || !(EVERY >= 1))
  throw new Error('--minutes, --concurrency and --sample-seconds must be positive');
// The server's alone (not this load generator's): an allocator to compare, e.g.
// `--server-env MALLOC_ARENA_MAX=2` or `--server-env LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2`.
const SERVER_ENV = Object.fromEntries(
  (args['server-env'] ?? []).map((kv) => {
    const at = kv.indexOf('=');
    if (at < 1) throw new Error(`--server-env takes NAME=VALUE (got "${kv}")`);
    return [kv.slice(0, at), kv.slice(at + 1)];
  }),
);
const THEME = [
  'theme',
  'set',
  '--account',
  'bench@localhost',
  '--background',
  '#FEF3C7',
  '--text',
  '#1F2937',
  '--accent',
  '#B45309',
  '--font',
  'serif',
];
const TOKEN = 'soak-metrics-token-0123456789abcdef';
const MiB = 2 ** 20;

async function main(): Promise<void> {
  const pages = await startPageServer();
  const artwork = await startArtworkServer();
  const probeDir = mkdtempSync(path.join(os.tmpdir(), 'cardshot-soak-'));
  const probeFile = path.join(probeDir, 'probe.json');
  const server = await startServer(
    path.join(root, 'dist/src/main.js'),
    {
      CARDSHOT_LOG_LEVEL: 'warn',
      CARDSHOT_ALLOW_PRIVATE_HOSTS: `${pages.hostPort},${artwork.hostPort}`,
      CARDSHOT_METRICS_TOKEN: TOKEN,
      SOAK_PROBE_FILE: probeFile,
      ...SERVER_ENV,
    },
    ['--import', path.join(root, 'dist/bench/soak/probe.js')],
  );
  // A brand theme with a logo, so half the cards (those without theme=none) draw it. From a
  // file: the CLI runs synchronously, so this process could not serve it a URL meanwhile.
  const logo = path.join(probeDir, 'logo.png');
  writeFileSync(logo, artwork.logo);
  try {
    server.cli([...THEME, '--logo-file', logo]);
  } catch (err) {
    // Stop the server here: an exit with it still running leaves it and its Chromium behind.
    await server.stop();
    await Promise.all([pages.close(), artwork.close()]);
    throw err;
  }
  const request = createRequests(PROFILE, {
    auth: server.auth,
    pages: pages.url,
    artwork: { url: artwork.url, paths: artwork.paths },
  });
  const samples: Sample[] = [];
  const ticks: Tick[] = [];
  const started = Date.now();
  const end = started + MINUTES * 60_000;

  const worker = async () => {
    while (Date.now() < end) {
      const kind: Kind = pickKind(PROFILE);
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
      samples.push({ tick: ticks.length, kind, status, ms: performance.now() - t0 });
    }
  };

  const memoryCacheMiB = async () => {
    const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const m = /^cardshot_cache_bytes\{tier="memory"\} (\S+)$/m.exec(await res.text());
    return m ? Number(m[1]) / MiB : Number.NaN;
  };
  const sample = async () => {
    const p = JSON.parse(readFileSync(probeFile, 'utf8')) as ProbeReading;
    const tick: Tick = {
      seconds: (Date.now() - started) / 1000,
      // RSS from /proc now; the rest from the probe's reading of at most 2 s ago.
      rss: server.memory().rssMiB,
      rssAnon: p.rssAnon / MiB,
      heapUsed: p.heapUsed / MiB,
      heapTotal: p.heapTotal / MiB,
      external: p.external / MiB,
      arrayBuffers: p.arrayBuffers / MiB,
      sharp: p.sharp ? p.sharp.memoryCurrent / MiB : Number.NaN,
      memoryCache: await memoryCacheMiB().catch(() => Number.NaN),
      chromium: chromiumOf(server.pid).processes,
      fds: readdirSync(`/proc/${server.pid}/fd`).length,
    };
    ticks.push(tick);
    process.stdout.write(
      line(
        tick,
        samples.filter((x) => x.tick === ticks.length - 1),
      ),
    );
  };

  process.stdout.write(
    `soak: profile ${PROFILE}, ${MINUTES} min at concurrency ${CONCURRENCY} against ${server.url} (pid ${server.pid}), a sample every ${EVERY} s; probe ${probeFile}; server env ${JSON.stringify(SERVER_ENV)}; ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(2)}\n`,
  );
  process.stdout.write(header());
  let malloc: MallocReport | undefined;
  const ticker = setInterval(() => void sample(), EVERY * 1000);
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    clearInterval(ticker);
    await sample(); // the traffic since the last tick
    // After the traffic, before the stop: what glibc holds, and what a trim gives back.
    malloc = readMalloc(server.pid, path.join(probeDir, 'malloc.xml'));
  } finally {
    clearInterval(ticker);
    await server.stop();
    await Promise.all([pages.close(), artwork.close()]);
    if (!args['keep-probe']) rmSync(probeDir, { recursive: true, force: true });
  }

  const { problems, summary } = verdict(samples, ticks);
  process.stdout.write(summary + describeMalloc(malloc));
  if (args.json)
    writeFileSync(args.json, JSON.stringify({ profile: PROFILE, minutes: MINUTES, ticks, malloc }, null, 1));
  process.stdout.write(
    problems.length === 0 ? 'verdict: PASS\n' : `verdict: FAIL\n- ${problems.join('\n- ')}\n`,
  );
  if (problems.length > 0) process.exitCode = 1;
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
