/**
 * Screenshot options benchmark (issue 17 §3), every figure a ratio within one run:
 *   (1) a plain capture (no options) by this build against today's build (by default the commit
 *       this branch left main at, `git merge-base HEAD main`, so only this change is measured;
 *       `--baseline <ref>` for another), both over HTTP with the cache bypassed (a distinct URL
 *       each time), requests interleaved;
 *   (2) fullPage=true on a 10,000 px page against raw playwright-core with a warm browser (new
 *       context, goto, `page.screenshot({ fullPage: true })`, close), interleaved;
 *   (3) encoding one 1200×630 capture as PNG (Cardshot's policy), JPEG, WebP and AVIF, in this
 *       process with the service's own encoder: p50 and size, for the landing page and for a
 *       photo-heavy page, and the WebP/PNG size ratio end to end over HTTP.
 *
 *   npm run bench:screenshot-options [-- --rounds 6 --baseline <git ref> --no-docs]
 *
 * Not a test: CI does not run it. All traffic stays on 127.0.0.1.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type Browser, chromium } from 'playwright-core';
import sharp from 'sharp';
import { encodeArea } from '../src/render/screenshot/engine/page/shoot.js';
import { settings } from '../src/settings.js';
import { buildBaseline } from './lib/baseline.js';
import { machineFacts, markdownTable, type Table, textTable, writeSection } from './lib/report.js';
import { type ServerHandle, startServer } from './lib/server.js';
import { type Site, startSite } from './lib/site.js';
import { summarize } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '6' },
    baseline: { type: 'string', default: '' },
    encodes: { type: 'string', default: '25' },
    'no-docs': { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(args.rounds);
const ENCODES = Number(args.encodes);
const PER_ROUND = { plain: 6, full: 3 };
const EXECUTABLE = settings.chromiumPath.default;
const FLAGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];
const VIEWPORT = { width: 1200, height: 630 };
const root = path.resolve(import.meta.dirname, '../..');
const say = (m: string) => process.stderr.write(`[bench] ${m}\n`);
const ms = (v: number) => v.toFixed(1);
const kb = (n: number) => (n / 1024).toFixed(1);
let uniq = 0;

/** One GET /render/url with a distinct URL (a cache miss); the client's time and the answer. */
async function capture(server: ServerHandle, url: string, options: Record<string, string> = {}) {
  const started = performance.now();
  const query = new URLSearchParams({ url: `${url}?n=${uniq++}`, ...options });
  const res = await fetch(`${server.url}/render/url?${query}`, { headers: server.auth });
  const body = Buffer.from(await res.arrayBuffer());
  const elapsed = performance.now() - started;
  if (res.status !== 200)
    throw new Error(`Cardshot answered ${res.status}: ${body.toString().slice(0, 200)}`);
  return { ms: elapsed, body };
}

/** Raw playwright-core, warm browser: new context, load, full-page screenshot, close. */
async function rawFullPage(browser: Browser, url: string) {
  const started = performance.now();
  const context = await browser.newContext({ viewport: VIEWPORT });
  try {
    const page = await context.newPage();
    await page.goto(`${url}?n=${uniq++}`, { waitUntil: 'load' });
    const body = await page.screenshot({ type: 'png', fullPage: true });
    return { ms: performance.now() - started, body };
  } finally {
    await context.close();
  }
}

/** The PNG Chromium sends Cardshot for a 1200×630 page (CDP, optimizeForSpeed), as the service gets it. */
async function rawCapture(browser: Browser, url: string): Promise<Buffer> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    const cdp = await context.newCDPSession(page);
    const shot = await cdp.send('Page.captureScreenshot', {
      format: 'png',
      optimizeForSpeed: true,
      clip: { x: 0, y: 0, ...VIEWPORT, scale: 1 },
    });
    return Buffer.from(shot.data, 'base64');
  } finally {
    await context.close();
  }
}

/** The median of `a[i] / b[i]`: each pair ran back to back, under the same load. */
function pairedRatio(a: number[], b: number[]): number {
  return summarize(a.map((v, i) => v / b[i]!)).p50;
}

async function plainVsToday(current: ServerHandle, today: ServerHandle, site: Site) {
  const samples = { current: [] as number[], today: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    say(`plain round ${r + 1}/${ROUNDS}`);
    // Alternating who goes first each round, so neither always follows the other's clean-up.
    const order = r % 2 === 0 ? (['current', 'today'] as const) : (['today', 'current'] as const);
    for (let i = 0; i < PER_ROUND.plain; i++) {
      for (const who of order) {
        samples[who].push((await capture(who === 'current' ? current : today, site.url)).ms);
      }
    }
  }
  return {
    current: summarize(samples.current),
    today: summarize(samples.today),
    paired: pairedRatio(samples.current, samples.today),
  };
}

async function fullPageVsRaw(current: ServerHandle, browser: Browser, site: Site) {
  const tall = `${site.url}tall`;
  const samples = { cardshot: [] as number[], raw: [] as number[] };
  let sizes = { cardshot: '', raw: '' };
  for (let r = 0; r < ROUNDS; r++) {
    say(`fullPage round ${r + 1}/${ROUNDS}`);
    for (let i = 0; i < PER_ROUND.full; i++) {
      const ours = await capture(current, tall, { fullPage: 'true' });
      const raw = await rawFullPage(browser, tall);
      samples.cardshot.push(ours.ms);
      samples.raw.push(raw.ms);
      const dims = async (b: Buffer) => {
        const m = await sharp(b).metadata();
        return `${m.width}×${m.height}, ${kb(b.length)} KB`;
      };
      sizes = { cardshot: await dims(ours.body), raw: await dims(raw.body) };
    }
  }
  return {
    cardshot: summarize(samples.cardshot),
    raw: summarize(samples.raw),
    paired: pairedRatio(samples.cardshot, samples.raw),
    sizes,
  };
}

async function encodes(browser: Browser, site: Site) {
  const out: Array<{ page: string; format: string; p50: number; bytes: number }> = [];
  const formats = ['png', 'jpeg', 'webp', 'avif'] as const;
  for (const [page, url] of [
    ['landing page', site.url],
    ['photo-heavy page', `${site.url}photos`],
  ] as const) {
    say(`encode the ${page}`);
    const raw = await rawCapture(browser, url);
    const times = new Map<string, number[]>(formats.map((f) => [f, []]));
    const bytes = new Map<string, number>();
    // Formats in turn within each iteration: the machine's load falls on all of them alike.
    for (let i = 0; i < ENCODES; i++) {
      for (const format of formats) {
        const started = performance.now();
        const image = await encodeArea(raw, VIEWPORT, format === 'png' ? undefined : { format });
        times.get(format)!.push(performance.now() - started);
        bytes.set(format, image.length);
      }
    }
    for (const format of formats) {
      out.push({ page, format, p50: summarize(times.get(format)!).p50, bytes: bytes.get(format)! });
    }
  }
  return out;
}

async function main() {
  const started = new Date();
  const loadAtStart = os.loadavg()[0]!;
  const ref = args.baseline || mergeBase();
  say(`building the baseline (${ref})`);
  const baseline = buildBaseline(root, ref);
  const site = await startSite();
  const env = {
    CARDSHOT_LOG_LEVEL: 'warn',
    CARDSHOT_ALLOW_PRIVATE_HOSTS: site.hostPort,
    CARDSHOT_CHROMIUM_PATH: EXECUTABLE,
  };
  const current = await startServer(path.join(root, 'dist/src/main.js'), env, [], undefined, true);
  const today = await startServer(baseline.entry, env);
  const browser = await chromium.launch({ executablePath: EXECUTABLE, args: FLAGS });
  try {
    say('warm-up');
    for (let i = 0; i < 3; i++) {
      await capture(current, site.url);
      await capture(today, site.url);
      await capture(current, `${site.url}tall`, { fullPage: 'true' });
      await rawFullPage(browser, `${site.url}tall`);
    }
    const plain = await plainVsToday(current, today, site);
    const full = await fullPageVsRaw(current, browser, site);
    const encoded = await encodes(browser, site);
    const png = await capture(current, `${site.url}photos`);
    const webp = await capture(current, `${site.url}photos`, { format: 'webp', quality: '80' });
    report({
      started,
      load: [loadAtStart, os.loadavg()[0]!],
      commit: baseline.commit,
      plain,
      full,
      encoded,
      http: { png: png.body.length, webp: webp.body.length },
    });
  } finally {
    await browser.close();
    await current.stop();
    await today.stop();
    await site.close();
  }
}

type Results = {
  started: Date;
  /** The 1-minute load average when the run started and when it ended. */
  load: number[];
  commit: string;
  plain: Awaited<ReturnType<typeof plainVsToday>>;
  full: Awaited<ReturnType<typeof fullPageVsRaw>>;
  encoded: Awaited<ReturnType<typeof encodes>>;
  http: { png: number; webp: number };
};

function report(r: Results) {
  const plain: Table = [
    ['GET /render/url, no options, cache bypassed', 'n', 'p50 ms', 'mean ms', 'p95 ms'],
    [
      'this build',
      String(r.plain.current.n),
      ms(r.plain.current.p50),
      ms(r.plain.current.mean),
      ms(r.plain.current.p95),
    ],
    [
      `today's build (${r.commit.slice(0, 7)})`,
      String(r.plain.today.n),
      ms(r.plain.today.p50),
      ms(r.plain.today.mean),
      ms(r.plain.today.p95),
    ],
    [
      'ratio this / today',
      '',
      `${(r.plain.current.p50 / r.plain.today.p50).toFixed(3)}×`,
      `${(r.plain.current.mean / r.plain.today.mean).toFixed(3)}×`,
      '',
    ],
    ['median of the paired ratios (back-to-back requests)', '', `${r.plain.paired.toFixed(3)}×`, '', ''],
  ];
  const full: Table = [
    ['full page of a 10,000 px page', 'n', 'p50 ms', 'mean ms', 'image'],
    [
      'Cardshot fullPage=true (HTTP, scroll for lazy content included)',
      String(r.full.cardshot.n),
      ms(r.full.cardshot.p50),
      ms(r.full.cardshot.mean),
      r.full.sizes.cardshot,
    ],
    [
      'raw playwright-core, warm browser, fullPage: true',
      String(r.full.raw.n),
      ms(r.full.raw.p50),
      ms(r.full.raw.mean),
      r.full.sizes.raw,
    ],
    [
      'ratio Cardshot / raw',
      '',
      `${(r.full.cardshot.p50 / r.full.raw.p50).toFixed(2)}×`,
      `${(r.full.cardshot.mean / r.full.raw.mean).toFixed(2)}×`,
      '',
    ],
    ['median of the paired ratios', '', `${r.full.paired.toFixed(2)}×`, '', ''],
  ];
  const enc: Table = [['1200×630 capture', 'format', 'encode p50 ms', 'KB', 'size vs PNG']];
  for (const e of r.encoded) {
    const png = r.encoded.find((x) => x.page === e.page && x.format === 'png')!.bytes;
    enc.push([e.page, e.format, ms(e.p50), kb(e.bytes), `${(png / e.bytes).toFixed(1)}× smaller`]);
  }
  const tables = [plain, full, enc];
  process.stdout.write(
    `${tables.map(textTable).join('\n\n')}\n\nHTTP, photo-heavy page: PNG ${kb(r.http.png)} KB, WebP q80 ${kb(r.http.webp)} KB (${(r.http.png / r.http.webp).toFixed(1)}× smaller)\n`,
  );
  if (args['no-docs']) return;
  const md = `## Screenshot options (\`bench/screenshot-options.ts\`)

Command: \`npm run bench:screenshot-options\` (\`-- --rounds N --baseline <git ref>\`).
Run: ${r.started.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machineFacts()}; browser \`${EXECUTABLE}\`; load average ${r.load.map((l) => l.toFixed(1)).join(' → ')} (start → end of the run).

How it is measured: two servers (\`node dist/src/main.js\` as children, NODE_ENV=production, log level warn), this build and today's (\`git archive\` of commit ${r.commit.slice(0, 7)}, ${args.baseline ? `\`${args.baseline}\`` : 'where this branch left main'}, built beside it), on the landing page of \`bench/lib/site.ts\` with a distinct URL per request (a cache miss each time), requests interleaved one at a time in ${ROUNDS} rounds. Full page: \`/tall\` of the same site (exactly 10,000 px, every image eager so the raw screenshot draws them too), Cardshot over HTTP against raw playwright-core in this process with a warm browser (new context, \`goto\` to load, \`page.screenshot({ fullPage: true })\`, close), interleaved. Encoding: one capture of each page as Chromium sends it to Cardshot (CDP, optimizeForSpeed), encoded ${ENCODES} times per format in this process by the service's own \`encodeArea\` (PNG: the flat-page re-encode policy, which keeps Chromium's own PNG for photographic pages, hence 0 ms; JPEG and WebP at 80, AVIF at 50), the formats in turn within each iteration. The machine is shared: absolute times drift with its load (the load average is printed), the ratios much less.

${markdownTable(plain)}

${markdownTable(full)}

${markdownTable(enc)}

Over HTTP, the photo-heavy page: PNG ${kb(r.http.png)} KB, WebP at quality 80 ${kb(r.http.webp)} KB (${(r.http.png / r.http.webp).toFixed(1)}× smaller).
`;
  writeSection(path.join(root, 'docs/benchmarks.md'), 'screenshot-options', md);
}

/** The commit this branch left main at: "today" without anything merged into main since. */
function mergeBase(): string {
  return execFileSync('git', ['merge-base', 'HEAD', 'main'], { cwd: root, encoding: 'utf8' }).trim();
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
