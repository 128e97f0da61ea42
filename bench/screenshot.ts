/**
 * Screenshot benchmark (issue 4 §6). A realistic page (web font, six images, a stylesheet, a
 * script that builds part of the page) on loopback, captured at 1200×630 in one run by:
 *   (a) a browser launched per capture, as capture-website does (Puppeteer's full Chrome in
 *       headless mode: here Debian's full chromium); (a') the same with Cardshot's browser;
 *   (b) raw playwright-core with a warm browser (Cardshot's): new context, goto, screenshot, close;
 *   (c) Cardshot over HTTP with the cache bypassed (a distinct URL each time), back to back and
 *       paced (a pause between requests, as on a server that is not saturated);
 *   (d) Cardshot cached (X-Cache HIT).
 * (a), (b) and (c) run in interleaved rounds so the shared machine's noise hits all of them.
 * Then concurrency 8 for 60 s, and RSS and Chromium processes over 300 captures.
 *
 *   npm run bench:screenshot [-- --rounds 4 --load 60 --captures 300 --no-docs]
 *
 * Not a test: CI does not run it. All traffic stays on 127.0.0.1.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type Browser, chromium } from 'playwright-core';
import { settings } from '../src/settings.js';
import { chromiumOf } from './lib/chromium.js';
import { type LoadResult, mergeLoads, runLoad } from './lib/load.js';
import { machineFacts, markdownTable, type Table, textTable, writeSection } from './lib/report.js';
import { startServer } from './lib/server.js';
import { startSite } from './lib/site.js';
import { type Summary, summarize } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '4' },
    load: { type: 'string', default: '60' },
    captures: { type: 'string', default: '300' },
    // Cardshot's browser, also used by (a') and (b); (a) uses the full browser, as capture-website.
    executable: { type: 'string', default: settings.chromiumPath.default },
    'baseline-executable': { type: 'string', default: '/usr/bin/chromium' },
    'no-docs': { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(args.rounds);
const LOAD_SECONDS = Number(args.load);
const CAPTURES = Number(args.captures);
const EXECUTABLE = args.executable;
const BASELINE_EXECUTABLE = args['baseline-executable'];
const PER_ROUND = { a: 3, same: 3, b: 5, c: 5, paced: 5, d: 50 };
const PACE_MS = 500;
const SOAK_STEPS = 3;
const SERVER_MEMORY_CACHE = 16 * 1024 * 1024;
const VIEWPORT = { width: 1200, height: 630 };
// The same hardening flags Cardshot uses (minus its proxy), so (a) and (b) are not handicapped.
const FLAGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const root = path.resolve(import.meta.dirname, '../..');
const say = (m: string) => process.stderr.write(`[bench] ${m}\n`);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ms = (v: number) => v.toFixed(1);

let uniq = 0;

/** (a) What capture-website does: launch, open, load, screenshot, close, for every capture. */
async function perLaunch(url: string, executablePath: string): Promise<number> {
  const start = performance.now();
  const browser = await chromium.launch({ executablePath, args: FLAGS });
  try {
    const page = await browser.newPage({ viewport: VIEWPORT });
    await page.goto(url, { waitUntil: 'load' });
    await page.screenshot({ type: 'png' });
  } finally {
    await browser.close();
  }
  return performance.now() - start;
}

/** (b) Plain playwright-core with a warm browser and a new context per capture. */
async function warmRaw(browser: Browser, url: string): Promise<{ ms: number; png: Buffer }> {
  const start = performance.now();
  const context = await browser.newContext({ viewport: VIEWPORT });
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    const png = await page.screenshot({ type: 'png' });
    return { ms: performance.now() - start, png };
  } finally {
    await context.close();
  }
}

/** The benchmark account's `x-api-key` header, set once the server has started. */
let auth: Record<string, string> = {};

/** (c)/(d) One GET /render/url; returns the client's time and the server's phases. */
async function cardshot(server: string, url: string) {
  const start = performance.now();
  const res = await fetch(`${server}/render/url?${new URLSearchParams({ url })}`, { headers: auth });
  const body = Buffer.from(await res.arrayBuffer());
  const elapsed = performance.now() - start;
  if (res.status !== 200)
    throw new Error(`Cardshot answered ${res.status}: ${body.toString().slice(0, 200)}`);
  const phases: Record<string, number> = {};
  for (const m of (res.headers.get('server-timing') ?? '').matchAll(/(\w+);dur=([\d.]+)/g)) {
    phases[m[1]!] = Number(m[2]);
  }
  return { ms: elapsed, png: body, cache: res.headers.get('x-cache'), phases };
}

async function main() {
  const site = await startSite();
  const server = await startServer(path.join(root, 'dist/src/main.js'), {
    CARDSHOT_LOG_LEVEL: 'warn',
    // The memory tier is a byte budget (128 MiB by default): left at the default, 300 captures
    // of ~500 KB would fill it and "RSS growth" would measure the budget, not leaks.
    CARDSHOT_CACHE_MEMORY_BYTES: String(SERVER_MEMORY_CACHE),
    CARDSHOT_ALLOW_PRIVATE_HOSTS: site.hostPort,
    CARDSHOT_CHROMIUM_PATH: EXECUTABLE,
  });
  auth = server.auth;
  const browser = await chromium.launch({ executablePath: EXECUTABLE, args: FLAGS });
  const fresh = () => `${site.url}?n=${uniq++}`;
  try {
    say('warm-up');
    for (let i = 0; i < 3; i++) {
      await warmRaw(browser, fresh());
      await cardshot(server.url, fresh());
    }
    await perLaunch(fresh(), BASELINE_EXECUTABLE);
    await perLaunch(fresh(), EXECUTABLE);

    const a: number[] = [];
    const same: number[] = [];
    const b: number[] = [];
    const c: number[] = [];
    const paced: number[] = [];
    const d: number[] = [];
    const phases: Record<string, number[]> = {};
    const pacedPhases: Record<string, number[]> = {};
    const samples: Record<string, Buffer> = {};
    const cachedUrl = `${site.url}?cached`;
    await cardshot(server.url, cachedUrl);
    for (let r = 0; r < ROUNDS; r++) {
      say(
        `round ${r + 1}/${ROUNDS}: a ×${PER_ROUND.a}, a' ×${PER_ROUND.same}, b ×${PER_ROUND.b}, c ×${PER_ROUND.c}, paced ×${PER_ROUND.paced}, d ×${PER_ROUND.d}`,
      );
      for (let i = 0; i < PER_ROUND.a; i++) a.push(await perLaunch(fresh(), BASELINE_EXECUTABLE));
      for (let i = 0; i < PER_ROUND.same; i++) same.push(await perLaunch(fresh(), EXECUTABLE));
      for (let i = 0; i < PER_ROUND.b; i++) {
        const out = await warmRaw(browser, fresh());
        b.push(out.ms);
        samples.raw ??= out.png;
      }
      for (let i = 0; i < PER_ROUND.c; i++) {
        const out = await cardshot(server.url, fresh());
        c.push(out.ms);
        samples.cardshot ??= out.png;
        collect(phases, out.phases);
      }
      for (let i = 0; i < PER_ROUND.paced; i++) {
        await pause(PACE_MS);
        const out = await cardshot(server.url, fresh());
        paced.push(out.ms);
        collect(pacedPhases, out.phases);
      }
      // autocannon's per-response hrtime: fetch() alone costs about a millisecond per call.
      const hits = await runLoad({
        headers: auth,
        url: `${server.url}/render/url?${new URLSearchParams({ url: cachedUrl })}`,
        connections: 1,
        amount: PER_ROUND.d,
      });
      if (hits.ok !== PER_ROUND.d) throw new Error(`cached run: ${JSON.stringify(hits.status)}`);
      d.push(...hits.latencies);
    }
    const outDir = path.join(root, 'bench/out');
    mkdirSync(outDir, { recursive: true });
    writeFileSync(path.join(outDir, 'screenshot-raw.png'), samples.raw!);
    writeFileSync(path.join(outDir, 'screenshot-cardshot.png'), samples.cardshot!);

    say(`load: concurrency 8 for ${LOAD_SECONDS} s, a distinct URL per request`);
    const load = await runLoad({
      headers: auth,
      url: `${server.url}/render/url`,
      connections: 8,
      duration: LOAD_SECONDS,
      nextPath: () => `/render/url?${new URLSearchParams({ url: fresh() })}`,
    });

    say(`soak: ${CAPTURES} captures at concurrency 2 in ${SOAK_STEPS} steps, RSS and processes after each`);
    const sample = async () => {
      // Contexts close and spares refill after the last response: let that finish first.
      await pause(3000);
      return { server: server.memory(), chromium: chromiumOf(server.pid) };
    };
    // Warm-up first: the load above leaves contexts closing and spares refilling.
    await runLoad({
      headers: auth,
      url: `${server.url}/render/url`,
      connections: 2,
      amount: 30,
      nextPath: () => `/render/url?${new URLSearchParams({ url: fresh() })}`,
    });
    const soakSamples = [await sample()];
    const soakRuns: LoadResult[] = [];
    for (let i = 0; i < SOAK_STEPS; i++) {
      soakRuns.push(
        await runLoad({
          headers: auth,
          url: `${server.url}/render/url`,
          connections: 2,
          amount: Math.round(CAPTURES / SOAK_STEPS),
          nextPath: () => `/render/url?${new URLSearchParams({ url: fresh() })}`,
        }),
      );
      soakSamples.push(await sample());
    }
    const soak = mergeLoads(soakRuns);
    const before = soakSamples[0]!;
    const after = soakSamples[soakSamples.length - 1]!;
    return {
      a: summarize(a),
      same: summarize(same),
      b: summarize(b),
      c: summarize(c),
      paced: summarize(paced),
      d: summarize(d),
      phases: p50s(phases),
      pacedPhases: p50s(pacedPhases),
      sizes: { raw: samples.raw!.length, cardshot: samples.cardshot!.length },
      load,
      soak: { run: soak, before, after, samples: soakSamples },
    };
  } finally {
    await browser.close();
    await server.stop();
    await site.close();
  }
}

function collect(into: Record<string, number[]>, phases: Record<string, number>): void {
  for (const [k, v] of Object.entries(phases)) into[k] = [...(into[k] ?? []), v];
}

function p50s(phases: Record<string, number[]>): Record<string, number> {
  return Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, summarize(v).p50]));
}

type Results = Awaited<ReturnType<typeof main>>;

function row(name: string, s: Summary, vsB: Summary): string[] {
  return [name, String(s.n), ms(s.p50), ms(s.p95), ms(s.max), `${(s.p50 / vsB.p50).toFixed(2)}×`];
}

/** A "(c) ≥ 5× faster than (a)" row of the targets table. */
function ratioRow(name: string, slow: Summary, fast: Summary): string[] {
  const ratio = slow.p50 / fast.p50;
  return [
    name,
    `${ratio.toFixed(2)}× (${ms(slow.p50)} / ${ms(fast.p50)} ms)`,
    '≥ 5×',
    ratio >= 5 ? 'PASS' : 'FAIL',
  ];
}

function loadRow(name: string, r: LoadResult): string[] {
  return [
    name,
    r.reqPerSec.toFixed(1),
    ms(r.latency.p50),
    ms(r.latency.p99),
    String(r.ok),
    String(r.unavailable),
    String(r.failed + r.errors),
  ];
}

function tables(res: Results): Table[] {
  const { a, same, b, c, paced, d, load, soak } = res;
  const phaseNames = ['queue', 'context', 'navigate', 'fonts', 'capture', 'encode', 'total'];
  const growth = soak.after.server.rssMiB - soak.before.server.rssMiB;
  const chromeGrowth = soak.after.chromium.rssMiB - soak.before.chromium.rssMiB;
  const procDelta = soak.after.chromium.processes - soak.before.chromium.processes;
  const otherErrors = load.failed + load.errors;
  return [
    [
      ['capture of the fixture page, 1200×630', 'n', 'p50 ms', 'p95 ms', 'max ms', 'p50 vs (b)'],
      row('(a) browser launched per capture (full chromium, as capture-website)', a, b),
      row("(a') browser launched per capture (Cardshot's browser)", same, b),
      row('(b) playwright-core, warm browser, new context', b, b),
      row('(c) Cardshot, cache bypassed, back to back', c, b),
      row(`(c') Cardshot, cache bypassed, ${PACE_MS} ms between requests`, paced, b),
      row('(d) Cardshot, cached (X-Cache HIT)', d, b),
    ],
    [
      ['Cardshot phase (Server-Timing p50, ms)', '(c) back to back', "(c') paced"],
      ...phaseNames.map((k) => [k, ms(res.phases[k] ?? 0), ms(res.pacedPhases[k] ?? 0)]),
    ],
    [
      ['load (HTTP, distinct URLs)', 'captures/s', 'p50 ms', 'p99 ms', '200', '503', 'other errors'],
      loadRow(`concurrency 8, ${LOAD_SECONDS} s`, load),
      loadRow(`soak: ${CAPTURES} captures, concurrency 2`, soak.run),
    ],
    [
      [
        'after N soak captures',
        ...soak.samples.map((_, i) => String(Math.round((i * CAPTURES) / SOAK_STEPS))),
      ],
      ['server RSS MiB', ...soak.samples.map((x) => ms(x.server.rssMiB))],
      ['Chromium RSS MiB', ...soak.samples.map((x) => ms(x.chromium.rssMiB))],
      ['Chromium processes', ...soak.samples.map((x) => String(x.chromium.processes))],
    ],
    [
      ['over the soak', 'before', 'after', 'change'],
      [
        'server RSS MiB',
        ms(soak.before.server.rssMiB),
        ms(soak.after.server.rssMiB),
        `${growth >= 0 ? '+' : ''}${ms(growth)}`,
      ],
      [
        'Chromium RSS MiB (sum of its processes)',
        ms(soak.before.chromium.rssMiB),
        ms(soak.after.chromium.rssMiB),
        `${chromeGrowth >= 0 ? '+' : ''}${ms(chromeGrowth)}`,
      ],
      [
        'Chromium processes',
        String(soak.before.chromium.processes),
        String(soak.after.chromium.processes),
        `${procDelta >= 0 ? '+' : ''}${procDelta}`,
      ],
    ],
    [
      ['target', 'measured', 'limit', 'result'],
      [
        '(c) p50 vs (b) p50',
        `${(c.p50 / b.p50).toFixed(2)}× (${ms(c.p50)} / ${ms(b.p50)} ms)`,
        '≤ 1.3×',
        c.p50 <= 1.3 * b.p50 ? 'PASS' : 'FAIL',
      ],
      ratioRow("(a) p50 / (c') p50, paced", a, paced),
      ratioRow('(a) p50 / (c) p50, back to back', a, c),
      ratioRow("(a') p50 / (c') p50, paced, same browser", same, paced),
      ratioRow("(a') p50 / (c) p50, back to back, same browser", same, c),
      ['(d) p50', `${d.p50.toFixed(2)} ms`, '< 5 ms', d.p50 < 5 ? 'PASS' : 'FAIL'],
      [
        `concurrency 8 for ${LOAD_SECONDS} s`,
        `${otherErrors} errors other than 503 (${load.unavailable} × 503)`,
        '0',
        otherErrors === 0 ? 'PASS' : 'FAIL',
      ],
      [
        `server RSS over ${CAPTURES} captures`,
        `${growth >= 0 ? '+' : ''}${ms(growth)} MiB`,
        '< 50 MiB',
        growth < 50 ? 'PASS' : 'FAIL',
      ],
      [
        `Chromium processes over ${CAPTURES} captures`,
        `${soak.before.chromium.processes} → ${soak.after.chromium.processes}`,
        'equal',
        procDelta === 0 ? 'PASS' : 'FAIL',
      ],
    ],
  ];
}

const started = new Date();
const res = await main();
const all = tables(res);
process.stdout.write(`\n${all.map(textTable).join('\n\n')}\n`);

if (!args['no-docs']) {
  const md = `## Screenshots (\`bench/screenshot.ts\`)

Command: \`npm run bench:screenshot\` (\`-- --rounds N --load SECONDS --captures N\` to change).
Run: ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machineFacts()}; Cardshot's browser \`${EXECUTABLE}\`, (a)'s \`${BASELINE_EXECUTABLE}\`.
Client, server, Chromium and the fixture site share these cores.

How it is measured:
- The page: \`bench/lib/site.ts\` on 127.0.0.1: HTML, a stylesheet, a deferred script that adds
  three cards, two Inter woff2 weights, three 600×400 JPEGs and three PNG logos. Every
  capture is 1200×630 and waits for \`load\`.
- (a) launches a browser per capture (\`chromium.launch\` → \`newPage\` → \`goto\` →
  \`screenshot\` → \`close\`), like capture-website, whose Puppeteer runs the full Chrome in
  headless mode: here Debian's full \`chromium\`. (a') does the same with Cardshot's browser
  (Debian's \`chromium-headless-shell\`), to show what the pool alone is worth. (b) keeps one
  of Cardshot's browsers and makes a new context per capture, with Playwright's
  \`page.screenshot\`. All use Cardshot's hardening flags, but no proxy.
- (c) is \`GET /render/url\` on \`node dist/src/main.js\` (a child process, default settings
  except a ${SERVER_MEMORY_CACHE / 1024 / 1024} MiB memory cache, the fixture's port allowed) with a distinct query string per request, so every request is
  a cache MISS that loads and captures the page through the egress proxy. (c') is the same
  with ${PACE_MS} ms between requests, the latency of a server that is not saturated. Times are the
  client's round trip (fetch), PNG bytes received. (d) repeats one URL (X-Cache HIT) with
  autocannon at concurrency 1, timed per response (fetch() itself costs about a millisecond).
- ${ROUNDS} rounds of a ×${PER_ROUND.a}, a' ×${PER_ROUND.same}, b ×${PER_ROUND.b}, c ×${PER_ROUND.c}, c' ×${PER_ROUND.paced}, d ×${PER_ROUND.d} after a warm-up, so noise
  from other work on the machine hits every variant.
- Load: autocannon, a distinct URL per request. Soak: 30 captures to settle, then ${CAPTURES}
  captures at concurrency 2 in ${SOAK_STEPS} steps; before and after each step (3 s after the load stops, so contexts have closed
  and spares refilled) VmRSS of the server and of every live Chromium process of its browser
  (summed, so shared pages count more than once), and their number.

${all.slice(0, 5).map(markdownTable).join('\n\n')}

PNG size of one capture: ${(res.sizes.raw / 1024).toFixed(0)} KB from (b) (Chromium's default encoder), ${(res.sizes.cardshot / 1024).toFixed(0)} KB from Cardshot.

### Targets

${markdownTable(all[5]!)}
`;
  writeSection(path.join(root, 'docs/benchmarks.md'), 'screenshot', md);
  say('wrote docs/benchmarks.md');
}
