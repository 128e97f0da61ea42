/**
 * blockAds and blockCookieBanners benchmark (issue 17 §3). Captures through the service's own
 * browser set-up (its launch flags, the egress proxy, a fresh context per capture) of:
 *   - a page with 40 ad-like images from ad hosts, each answered after 300 ms, without and with
 *     blockAds;
 *   - a page with 100 images of its own, without and with blockAds: what intercepting every
 *     request costs, and beside it the same interception by a bare CDP Fetch session;
 *   - a page with no ads and no consent banner, without any option, with blockAds, with
 *     blockCookieBanners and with both: what the options cost a page they find nothing on.
 * A capture is: attach the blocking (when on), load to `load`, beforeCapture, screenshot, detach;
 * the context is opened before the clock starts, as a capture leases it. Variants run in
 * interleaved rounds so the shared machine's noise hits all of them; p50 of each, and ratios.
 * Also: the first attach (the engines loaded, once per process) and the memory they take.
 *
 *   npm run bench:blocking [-- --rounds 15 --ads 40 --delay 300 --no-docs]
 *
 * Not a test: CI does not run it. All traffic stays on 127.0.0.1.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pino from 'pino';
import type { BrowserContext, Page } from 'playwright-core';
import {
  type Blocker,
  type BlockingOptions,
  createBlocker,
  defaultBlockingConfig,
  readManifest,
} from '../src/render/screenshot/blocking/index.js';
import { type AdSite, ALL_HOSTS, startAdSite } from '../test/helpers/ad-site.js';
import { closeCapture, type ProxiedBrowser, startProxiedBrowser } from '../test/helpers/proxied-browser.js';
import { machineFacts, markdownTable, type Table, textTable, writeSection } from './lib/report.js';
import { summarize } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '15' },
    ads: { type: 'string', default: '40' },
    delay: { type: 'string', default: '300' },
    'no-docs': { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(args.rounds);
const ADS = Number(args.ads);
const DELAY = Number(args.delay);
const root = path.resolve(import.meta.dirname, '../..');
const say = (m: string) => process.stderr.write(`[bench] ${m}\n`);
const ms = (v: number) => v.toFixed(0);
const MiB = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

interface Variant {
  name: string;
  page: string;
  opts?: BlockingOptions;
  /** The alternative to page.route: our own CDP Fetch session that lets every request go. */
  cdpFetch?: boolean;
}

const SLOW = `/slow-ads?n=${ADS}&delay=${DELAY}`;
const VARIANTS: Variant[] = [
  { name: `${ADS} slow ads, no option`, page: SLOW },
  { name: `${ADS} slow ads, blockAds`, page: SLOW, opts: { ads: true, cookieBanners: false } },
  { name: '100 own images, no option', page: '/own-images?n=100' },
  { name: '100 own images, blockAds', page: '/own-images?n=100', opts: { ads: true, cookieBanners: false } },
  { name: '100 own images, bare CDP Fetch instead', page: '/own-images?n=100', cdpFetch: true },
  { name: 'clean page, no option', page: '/clean' },
  { name: 'clean page, blockAds', page: '/clean', opts: { ads: true, cookieBanners: false } },
  { name: 'clean page, blockCookieBanners', page: '/clean', opts: { ads: false, cookieBanners: true } },
  { name: 'clean page, both', page: '/clean', opts: { ads: true, cookieBanners: true } },
];

/**
 * What intercepting with a CDP Fetch session of our own would cost, matching nothing: every
 * request paused and continued at once (Playwright pauses it a second time for the proxy's 407).
 */
async function passThroughFetch(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page);
  cdp.on(
    'Fetch.requestPaused',
    (e) => void cdp.send('Fetch.continueRequest', { requestId: e.requestId }).catch(() => {}),
  );
  await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
}

/** One capture as the capture path runs it; returns its milliseconds and the ad requests the site saw. */
async function captureOnce(browser: ProxiedBrowser, blocker: Blocker, site: AdSite, v: Variant) {
  const ctx = await browser.open();
  const before = site.log.length;
  try {
    const started = performance.now();
    const blocking = v.opts
      ? await blocker.attach(ctx.page, { ...v.opts, deadline: Date.now() + 15_000 })
      : undefined;
    if (v.cdpFetch) await passThroughFetch(ctx.context, ctx.page);
    await ctx.page.goto(site.url(v.page), { waitUntil: 'load' });
    await blocking?.beforeCapture();
    await ctx.page.screenshot({ type: 'png' });
    await blocking?.detach();
    const took = performance.now() - started;
    const adRequests = site.log.slice(before).filter((l) => !l.startsWith('www.news.test ')).length;
    return { took, adRequests };
  } finally {
    await closeCapture(ctx);
  }
}

/** The set-up step (build.ts) into a scratch folder, in its own process: its time and peak RSS. */
function measureBuild(): { ms: number; maxRssMiB: number } {
  const out = mkdtempSync(path.join(os.tmpdir(), 'cardshot-lists-'));
  const builder = pathToFileURL(path.join(root, 'dist/src/render/screenshot/blocking/build.js')).href;
  const lists = path.join(root, 'node_modules/@adguard/dnr-rulesets');
  const script = `const t = performance.now(); const { buildLists } = await import(${JSON.stringify(builder)});
await buildLists(${JSON.stringify(out)}, ${JSON.stringify(lists)});
console.log(JSON.stringify({ ms: performance.now() - t, maxRssKiB: process.resourceUsage().maxRSS }));`;
  try {
    const res = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }),
    );
    return { ms: res.ms, maxRssMiB: res.maxRssKiB / 1024 };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

function memory() {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed, external: m.external + m.arrayBuffers };
}

async function main(): Promise<void> {
  const listsDir = defaultBlockingConfig().listsDir;
  const manifest = await readManifest(listsDir);
  if (!manifest) throw new Error(`no blocking lists in ${listsDir}: run npm run setup`);
  const loadBefore = os.loadavg()[0]!;
  const build = measureBuild();
  say(`set-up build ${ms(build.ms)} ms, peak RSS ${build.maxRssMiB.toFixed(0)} MiB`);
  const site = await startAdSite();
  const browser = await startProxiedBrowser(ALL_HOSTS, site.port);
  const blocker = await createBlocker(defaultBlockingConfig(), { log: pino({ level: 'silent' }) });
  try {
    // Once per process: the engines and autoconsent, loaded by the first page that asks.
    const m0 = memory();
    const ctx = await browser.open();
    let started = performance.now();
    const first = await blocker.attach(ctx.page, { ads: true, cookieBanners: true });
    const firstAttach = performance.now() - started;
    await first.detach();
    await closeCapture(ctx);
    const m1 = memory();
    const warm: number[] = [];
    for (let i = 0; i < 5; i++) {
      const c = await browser.open();
      started = performance.now();
      const b = await blocker.attach(c.page, { ads: true, cookieBanners: true });
      warm.push(performance.now() - started);
      await b.detach();
      await closeCapture(c);
    }
    say(`first attach ${ms(firstAttach)} ms, later ${ms(summarize(warm).p50)} ms`);

    for (const v of VARIANTS) await captureOnce(browser, blocker, site, v); // warm-up
    const samples = new Map<string, number[]>(VARIANTS.map((v) => [v.name, []]));
    const adRequests = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const v of VARIANTS) {
        const r = await captureOnce(browser, blocker, site, v);
        samples.get(v.name)!.push(r.took);
        adRequests.set(v.name, r.adRequests);
      }
      say(`round ${round + 1}/${ROUNDS}`);
    }
    const p50 = (name: string) => summarize(samples.get(name)!).p50;
    const rows: Table = [['capture', 'p50 ms', 'p95 ms', 'ad requests seen', 'vs no option']];
    for (const v of VARIANTS) {
      const s = summarize(samples.get(v.name)!);
      const base = VARIANTS.find((b) => b.page === v.page && !b.opts)!;
      rows.push([
        v.name,
        ms(s.p50),
        ms(s.p95),
        String(adRequests.get(v.name)),
        `${(s.p50 / p50(base.name)).toFixed(2)}×`,
      ]);
    }
    const costs: Table = [
      ['once', 'value'],
      [
        'set-up: engines built from the lists (own process)',
        `${ms(build.ms)} ms, peak RSS ${build.maxRssMiB.toFixed(0)} MiB`,
      ],
      ['first attach (engines and autoconsent loaded)', `${ms(firstAttach)} ms`],
      ['later attach (p50 of 5)', `${ms(summarize(warm).p50)} ms`],
      ['heap after loading', `+${MiB(m1.heap - m0.heap)} MiB`],
      ['buffers after loading (engines)', `+${MiB(m1.external - m0.external)} MiB`],
      ['RSS after loading', `+${MiB(m1.rss - m0.rss)} MiB`],
      [
        'engine files',
        `ads ${MiB(manifest.engines.ads.bytes)} MiB, cookie banners ${MiB(manifest.engines.cookieBanners.bytes)} MiB`,
      ],
    ];
    const ratio = p50(VARIANTS[1]!.name) / p50(VARIANTS[0]!.name);
    // The machine is shared: its load says how much the absolute figures are worth.
    const load = `load average ${loadBefore.toFixed(1)} at the start, ${os.loadavg()[0]!.toFixed(1)} at the end`;
    console.log(
      `\n${textTable(rows)}\n\n${textTable(costs)}\n\nblockAds on ${ADS} slow ads: ${ratio.toFixed(2)}× the capture time without it`,
    );
    if (!args['no-docs']) {
      const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
      const md = `## Ad and cookie-banner blocking (\`npm run bench:blocking\`)

Command: \`npm run bench:blocking\` (\`-- --rounds N --ads N --delay MS\`). Run: ${when} UTC on ${machineFacts()}.
${ROUNDS} interleaved rounds (${load}); a capture is attach, load to \`load\`, \`beforeCapture\`, screenshot, detach,
in a fresh context through the egress proxy. The slow page has ${ADS} ad images from ad hosts, each
answered after ${DELAY} ms, beside its own content; the own-images page has 100 small images of
its own (every request goes through the blocking's request handler, none is blocked); "bare CDP
Fetch" is the alternative to \`page.route\` (a Fetch session of our own that continues every request
at once, judging nothing): as dear, while \`page.route\` also says which frame asked, which the
lists' third-party and domain= rules need.

${markdownTable(rows)}

**blockAds on ${ADS} slow ads: ${ratio.toFixed(2)}× the capture time without it.** With no option the
capture path attaches nothing, so its cost is zero by construction. The engines and autoconsent load
on the first capture that asks for an option (once per process; the service starts without them).

${markdownTable(costs)}
`;
      writeSection(path.join(root, 'docs/benchmarks.md'), 'blocking', md);
    }
  } finally {
    await blocker.close();
    await browser.close();
    await site.close();
  }
}

await main();
