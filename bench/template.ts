/**
 * Template rendering benchmark: takumi in-process vs satori + resvg-js (the baseline), the real
 * server over HTTP (uncached, cached, 304) at three concurrencies, its memory over many distinct
 * renders, and the card's PNG size. Absolute times drift on a shared 2-core machine, so the
 * engines and the c=1 HTTP run are measured in interleaved rounds and the targets are judged on
 * medians and ratios from the same window.
 *
 *   npm run bench:template [-- --duration 10 --renders 5000 --no-docs]
 *
 * Not a test: CI does not run it. All traffic goes to a child server on 127.0.0.1.
 */

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createTemplateRenderer } from '../src/render/template/renderer.js';
import { type CardText, createSatoriCard } from './baselines/satori-card.js';
import { type LoadOptions, type LoadResult, mergeLoads, runLoad } from './lib/load.js';
import { machineFacts, markdownTable, type Table, textTable, writeSection } from './lib/report.js';
import { type ServerHandle, startServer } from './lib/server.js';
import { type Summary, summarize } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    renders: { type: 'string', default: '5000' },
    'no-docs': { type: 'boolean', default: false },
  },
});
const DURATION = Number(args.duration);
const MEMORY_RENDERS = Number(args.renders);
const root = path.resolve(import.meta.dirname, '../..');
const KB = 1024;
const MiB = 1024 * 1024;
/**
 * The server's memory tier is a deliberate byte budget (default 128 MiB). Left at the default,
 * 5,000 distinct cards would fill it and "RSS growth" would measure the budget, not leaks.
 */
const SERVER_MEMORY_CACHE = 16 * MiB;
const N_TAKUMI = 200;
const N_SATORI = 100;
const ROUNDS = 4;

// Distinct cards of the same shape: equal title lengths give the same fitted font size.
const text = (tag: string, i: number): CardText & { [field: string]: string } => ({
  title: `Shipping faster social cards, part ${tag}${String(i).padStart(5, '0')}: what we measured`,
  subtitle: 'Rendering, caching and the cost of every millisecond on a small two-core server.',
  brand: 'Cardshot Engineering',
});
let uniq = 0;
const uniqueBody = () => JSON.stringify({ template: 'blog', ...text('h', uniq++) });
/** The bench account's key, set once the server is up; every request sends it. */
let auth: Record<string, string> = {};
const json = () => ({ 'content-type': 'application/json', ...auth });
const load = (opts: LoadOptions) => runLoad({ ...opts, headers: { ...auth, ...opts.headers } });

const ms = (v: number) => v.toFixed(1);
const rate = (v: number) => v.toFixed(0);
const say = (m: string) => process.stderr.write(`[bench] ${m}\n`);
const pause = (t: number) => new Promise((r) => setTimeout(r, t));

/** Fails fast when a path does not behave as its scenario assumes; returns the known card's ETag. */
async function checkServer(post: string, get: string, body: string): Promise<string> {
  const first = await fetch(post, { method: 'POST', headers: json(), body });
  await first.arrayBuffer();
  const again = await fetch(post, { method: 'POST', headers: json(), body });
  await again.arrayBuffer();
  const etag = first.headers.get('etag') ?? '';
  const cond = await fetch(get, { headers: { 'if-none-match': etag, ...auth } });
  if (first.status !== 200 || !etag || again.headers.get('x-cache') !== 'HIT' || cond.status !== 304) {
    const hint = first.status === 200 ? '' : await first.text().catch(() => '');
    throw new Error(
      `server misbehaves: ${first.status} ${hint} x-cache=${again.headers.get('x-cache')} 304=${cond.status}`,
    );
  }
  return etag;
}

/**
 * takumi, satori + resvg and HTTP uncached c=1 in alternating rounds after a warm-up, so a noisy
 * neighbour slows all three rather than whichever ran during the noise.
 */
async function interleaved(post: string) {
  const renderer = await createTemplateRenderer();
  const satori = await createSatoriCard();
  for (let i = 0; i < 20; i++) await renderer.render('blog', text('w', i));
  for (let i = 0; i < 5; i++) await satori(text('w', i));
  await load({ url: post, method: 'POST', connections: 1, amount: 30, nextBody: uniqueBody });

  const takumi: number[] = [];
  const sizes: number[] = [];
  const sat = { total: [] as number[], svg: [] as number[], png: [] as number[] };
  const http: LoadResult[] = [];
  const samples: { takumi?: Buffer; satori?: Buffer } = {};
  for (let r = 0; r < ROUNDS; r++) {
    say(
      `round ${r + 1}/${ROUNDS}: takumi ×${N_TAKUMI / ROUNDS}, satori ×${N_SATORI / ROUNDS}, HTTP c=1 ${DURATION / ROUNDS} s`,
    );
    for (let i = 0; i < N_TAKUMI / ROUNDS; i++) {
      const start = performance.now();
      const out = await renderer.render('blog', text('t', r * 1000 + i));
      takumi.push(performance.now() - start);
      sizes.push(out.png.length);
      samples.takumi ??= out.png;
    }
    for (let i = 0; i < N_SATORI / ROUNDS; i++) {
      const out = await satori(text('s', r * 1000 + i));
      sat.total.push(out.svgMs + out.pngMs);
      sat.svg.push(out.svgMs);
      sat.png.push(out.pngMs);
      samples.satori ??= out.png;
    }
    http.push(
      await load({
        url: post,
        method: 'POST',
        connections: 1,
        duration: DURATION / ROUNDS,
        nextBody: uniqueBody,
      }),
    );
  }
  await renderer.close();
  // Kept for a look with an image viewer (bench/out/ is git-ignored).
  const outDir = path.join(root, 'bench/out');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, 'blog-takumi.png'), samples.takumi!);
  writeFileSync(path.join(outDir, 'blog-satori.png'), samples.satori!);
  return {
    takumi: summarize(takumi),
    satori: summarize(sat.total),
    satoriSvg: summarize(sat.svg),
    satoriPng: summarize(sat.png),
    size: summarize(sizes),
    satoriSize: samples.satori!.length,
    httpC1: mergeLoads(http),
  };
}

/** Where one uncached request's time goes, from the server's own Server-Timing header. */
async function breakdown(post: string) {
  const phases: Record<string, number[]> = { client: [] };
  for (let i = 0; i < 40; i++) {
    const start = performance.now();
    const res = await fetch(post, { method: 'POST', headers: json(), body: uniqueBody() });
    await res.arrayBuffer();
    if (i < 10) continue; // warm-up
    phases.client!.push(performance.now() - start);
    for (const m of (res.headers.get('server-timing') ?? '').matchAll(/(\w+);dur=([\d.]+)/g)) {
      const name = m[1]!;
      phases[name] = [...(phases[name] ?? []), Number(m[2])];
    }
  }
  return Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, summarize(v).p50]));
}

async function memory(server: ServerHandle, post: string) {
  say(`memory: ${MEMORY_RENDERS} distinct uncached renders at c=8`);
  const before = server.memory();
  const run = await load({
    url: post,
    method: 'POST',
    connections: 8,
    amount: MEMORY_RENDERS,
    nextBody: uniqueBody,
  });
  // Let the background disk writes and a GC settle before the second reading.
  await pause(2000);
  return { before, after: server.memory(), run };
}

async function main() {
  const server = await startServer(path.join(root, 'dist/src/main.js'), {
    CARDSHOT_LOG_LEVEL: 'warn',
    CARDSHOT_CACHE_MEMORY_BYTES: String(SERVER_MEMORY_CACHE),
  });
  auth = server.auth;
  try {
    const post = `${server.url}/render/template`;
    const known = { template: 'blog', ...text('k', 0) };
    const get = `${post}?${new URLSearchParams(known)}`;
    const etag = await checkServer(post, get, JSON.stringify(known));
    const startRss = server.memory().rssMiB;

    const engines = await interleaved(post);
    say('server-side breakdown (40 sequential uncached requests)');
    const phases = await breakdown(post);
    const mem = await memory(server, post);

    const runs: Array<{ scenario: string; c: number; r: LoadResult }> = [
      { scenario: 'uncached', c: 1, r: engines.httpC1 },
    ];
    // An array, not an object: '304' is an integer-like key and would jump to the front.
    const plan: Array<[string, number[], Omit<LoadOptions, 'connections'>]> = [
      ['uncached', [8, 64], { url: post, method: 'POST', nextBody: uniqueBody }],
      ['cached', [1, 8, 64], { url: post, method: 'POST', body: JSON.stringify(known) }],
      ['304', [1, 8, 64], { url: get, headers: { 'if-none-match': etag } }],
    ];
    for (const [scenario, levels, opts] of plan) {
      for (const c of levels) {
        say(`http: ${scenario} c=${c} for ${DURATION} s`);
        runs.push({ scenario, c, r: await load({ ...opts, connections: c, duration: DURATION }) });
        await pause(500);
      }
    }
    return { engines, phases, mem: { ...mem, startRss }, runs };
  } finally {
    await server.stop();
  }
}

type Results = Awaited<ReturnType<typeof main>>;

function targets({ engines: e, mem, runs }: Results): Table {
  const find = (s: string, c: number) => runs.find((x) => x.scenario === s && x.c === c)!.r;
  const satoriRate = 1000 / e.satori.p50;
  const uncachedBest = Math.max(find('uncached', 8).reqPerSec, find('uncached', 64).reqPerSec);
  // Fast paths pass when some concurrency reaches the rate with the tail still under the limit.
  const fast = (s: string) => {
    const levels = [8, 64].map((c) => ({ c, r: find(s, c) })).sort((a, b) => b.r.reqPerSec - a.r.reqPerSec);
    const meeting = levels.find((l) => l.r.reqPerSec >= 5000 && l.r.latency.p99 < 20);
    const shown = meeting ?? levels[0]!;
    return [
      `${rate(shown.r.reqPerSec)} req/s, p99 ${ms(shown.r.latency.p99)} ms (c=${shown.c})`,
      meeting ? 'PASS' : 'FAIL',
    ];
  };
  const c1 = e.httpC1.latency.p50;
  const growth = mem.after.rssMiB - mem.before.rssMiB;
  const limit = '≥ 5,000 req/s and p99 < 20 ms';
  const [cachedText, cachedPass] = fast('cached');
  const [nmText, nmPass] = fast('304');
  return [
    ['target', 'measured', 'limit', 'ratio', 'result'],
    [
      'HTTP uncached p50, c=1',
      `${c1.toFixed(2)} ms`,
      `≤ 1.25 × takumi p50 ${e.takumi.p50.toFixed(2)} ms = ${(1.25 * e.takumi.p50).toFixed(2)} ms`,
      `${(c1 / e.takumi.p50).toFixed(2)}×`,
      c1 <= 1.25 * e.takumi.p50 ? 'PASS' : 'FAIL',
    ],
    [
      'uncached renders/s, best of c=8/64',
      `${rate(uncachedBest)}/s`,
      `≥ 3 × satori ${satoriRate.toFixed(1)}/s = ${rate(3 * satoriRate)}/s`,
      `${(uncachedBest / satoriRate).toFixed(2)}×`,
      uncachedBest >= 3 * satoriRate ? 'PASS' : 'FAIL',
    ],
    ['cached (X-Cache HIT)', cachedText!, limit, '', cachedPass!],
    ['304 (If-None-Match)', nmText!, limit, '', nmPass!],
    [
      `RSS growth over ${MEMORY_RENDERS} renders`,
      `${growth.toFixed(1)} MiB`,
      '< 100 MiB',
      '',
      growth < 100 ? 'PASS' : 'FAIL',
    ],
    [
      'blog PNG size (largest)',
      `${(e.size.max / KB).toFixed(1)} KB`,
      '≤ 100 KB',
      '',
      e.size.max <= 100 * KB ? 'PASS' : 'FAIL',
    ],
  ];
}

function tables(res: Results): Table[] {
  const { engines: e, mem, phases, runs } = res;
  const row = (name: string, s: Summary, size: string) => [
    name,
    String(s.n),
    ms(s.p50),
    ms(s.p95),
    ms(s.p99),
    (1000 / s.p50).toFixed(1),
    size,
  ];
  return [
    [
      ['in-process engine (blog card)', 'n', 'p50 ms', 'p95 ms', 'p99 ms', 'renders/s (1000/p50)', 'PNG KB'],
      row('takumi (renderer.render)', e.takumi, (e.size.p50 / KB).toFixed(1)),
      row('satori + resvg-js', e.satori, (e.satoriSize / KB).toFixed(1)),
      row('  of which satori → SVG', e.satoriSvg, ''),
      row('  of which resvg → PNG', e.satoriPng, ''),
      [
        'ratio satori+resvg / takumi (p50)',
        '',
        `${(e.satori.p50 / e.takumi.p50).toFixed(2)}×`,
        '',
        '',
        '',
        '',
      ],
    ],
    [
      ['HTTP scenario', 'conc.', 'req/s', 'p50 ms', 'p99 ms', '2xx/3xx', '503', 'other errors'],
      ...runs.map(({ scenario, c, r }) => [
        scenario,
        String(c),
        rate(r.reqPerSec),
        ms(r.latency.p50),
        ms(r.latency.p99),
        String(r.ok),
        String(r.unavailable),
        String(r.failed + r.errors),
      ]),
    ],
    [
      ['server memory', 'RSS MiB'],
      ['after start and the first card', mem.startRss.toFixed(1)],
      ['before the memory run (after the rounds above)', mem.before.rssMiB.toFixed(1)],
      [
        `after ${mem.run.ok} distinct renders (c=8, ${rate(mem.run.reqPerSec)}/s, ${mem.run.unavailable + mem.run.failed + mem.run.errors} errors)`,
        mem.after.rssMiB.toFixed(1),
      ],
      ['growth over the memory run', (mem.after.rssMiB - mem.before.rssMiB).toFixed(1)],
      ['peak (VmHWM)', mem.after.hwmMiB.toFixed(1)],
    ],
    [
      ['uncached request, c=1, p50 of 30', 'ms'],
      ...Object.entries(phases).map(([k, v]) => [
        k === 'client' ? 'client round trip (fetch)' : `server ${k}`,
        ms(v),
      ]),
    ],
    targets(res),
  ];
}

const started = new Date();
const res = await main();
const all = tables(res);
process.stdout.write(`\n${all.map(textTable).join('\n\n')}\n`);

if (!args['no-docs']) {
  const md = `## Template rendering (\`bench/template.ts\`)

Command: \`npm run bench:template\` (HTTP runs ${DURATION} s each; \`-- --duration N --renders N\` to change).
Run: ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machineFacts()}.
The load generator (autocannon) and the server share these cores, so HTTP figures are a floor.

How it is measured:
- In-process: one \`createTemplateRenderer()\` and the satori + resvg-js baseline
  (\`bench/baselines/satori-card.ts\`: the same blog layout, fonts and text, brand included) in
  the bench process. ${ROUNDS} rounds after a warm-up, each: ${N_TAKUMI / ROUNDS} takumi cards,
  ${N_SATORI / ROUNDS} satori cards, then ${DURATION / ROUNDS} s of HTTP uncached at c=1, so the
  three share the machine's noise. Every card has a distinct title of the same length. Times
  are wall-clock per call, PNG encode included.
- HTTP: \`node dist/src/main.js\` as a child (fresh data dir, NODE_ENV=production, log level
  warn, memory cache ${SERVER_MEMORY_CACHE / MiB} MiB, other settings default). uncached = POST with a new
  title each time; cached = the same POST repeated (X-Cache HIT); 304 = GET with the card's
  ETag in If-None-Match. Latency is each response's own hrtime, not autocannon's
  whole-millisecond histogram; autocannon's UTF-8 decoding of response bodies is switched off
  (\`bench/lib/load.ts\`), as it alone capped the cached run at ~2,500 req/s.
- Throughput target: satori's rate is single-process sequential (1000 / p50). satori is
  synchronous JavaScript, so one process renders one card at a time; a 2-worker pool could at
  best double it. takumi already spreads one render over both cores (see the analysis).
- Memory: VmRSS of the server before and after ${MEMORY_RENDERS} distinct uncached renders at c=8. The
  memory cache is capped at ${SERVER_MEMORY_CACHE / MiB} MiB so the growth shows leaks, not the cache budget.

${all.slice(0, 4).map(markdownTable).join('\n\n')}

### Targets

${markdownTable(all[4]!)}
`;
  writeSection(path.join(root, 'docs/benchmarks.md'), 'template', md);
  say('wrote docs/benchmarks.md');
}
