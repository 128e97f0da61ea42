/**
 * Site cards (`GET /og/<site>/<path>`, issue 30 §1) against the plain card route, in the same
 * run. Questions: (1) is a cached /og answer as cheap as a cached card (target: p50 ≤ 1.1× a
 * cached GET /render/template); (2) does a cold /og cost no more than reading the page plus
 * drawing its card (target: p50 ≤ the page's fetch time + 1.2× an uncached card render). The
 * three cold measurements are taken in turn for every sample (fetch the page, render a new card,
 * ask /og for a new page), so all three see the same noise on a shared machine.
 *
 *   npm run bench:og [-- --samples 60 --no-docs]
 *
 * Not a test: CI does not run it. All traffic stays on 127.0.0.1 (a fixture site in this process,
 * the server a child process).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { machineFacts, markdownTable, type Table, textTable, writeSection } from './lib/report.js';
import { startServer } from './lib/server.js';
import { summarize } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    samples: { type: 'string', default: '60' },
    rounds: { type: 'string', default: '6' },
    'no-docs': { type: 'boolean', default: false },
  },
});
const SAMPLES = Number(args.samples);
const ROUNDS = Number(args.rounds);
const CACHED_PER_ROUND = 200;
const root = path.resolve(import.meta.dirname, '../..');
const say = (m: string) => process.stderr.write(`[bench] ${m}\n`);

const TITLE = (n: string) => `Shipping faster social cards, part ${n}: what we measured`;
const SUBTITLE = 'Rendering, caching and the cost of every millisecond on a small two-core server.';
const BRAND = 'Cardshot Engineering';

/** A small blog: every /p/<n> page has the same tags with its own title. */
async function startSite() {
  const server = createServer((req, res) => {
    const n = new URL(req.url ?? '/', 'http://x').pathname.split('/').pop() ?? '0';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html><head><meta charset="utf-8"><title>${TITLE(n)}</title><meta property="og:title" content="${TITLE(n)}"><meta property="og:description" content="${SUBTITLE}"><meta property="og:site_name" content="${BRAND}"></head><body>${'<p>text</p>'.repeat(200)}</body></html>`,
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, hostPort: `127.0.0.1:${port}`, close: () => server.close() };
}

async function timed(url: string, headers: Record<string, string> = {}): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, { headers });
  await res.arrayBuffer();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return ms;
}

const median = (xs: number[]) => summarize(xs).p50;

async function main() {
  const site = await startSite();
  const server = await startServer(path.join(root, 'dist/src/main.js'), {
    CARDSHOT_ALLOW_PRIVATE_HOSTS: site.hostPort,
    CARDSHOT_SITE_READS_PER_MINUTE: '1000000',
    LOG_LEVEL: 'warn',
  });
  try {
    const created = await fetch(`${server.url}/sites`, {
      method: 'POST',
      headers: { ...server.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ origins: [site.url], template: 'blog' }),
    });
    if (created.status !== 201)
      throw new Error(`POST /sites answered ${created.status}: ${await created.text()}`);
    const { site: registered } = (await created.json()) as { site: { id: string } };
    const og = (p: string) => `${server.url}/og/${registered.id}${p}`;
    const card = (n: string) =>
      `${server.url}/render/template?${new URLSearchParams({ template: 'blog', title: TITLE(n), subtitle: SUBTITLE, brand: BRAND })}`;
    const ua = { 'user-agent': 'facebookexternalhit/1.1' };

    say('cached: interleaved rounds of /og and /render/template, each answered from the cache');
    await timed(og('/p/cached'), ua);
    await timed(card('cached'), server.auth);
    const cachedOg: number[] = [];
    const cachedCard: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (let i = 0; i < CACHED_PER_ROUND; i++) cachedOg.push(await timed(og('/p/cached'), ua));
      for (let i = 0; i < CACHED_PER_ROUND; i++) cachedCard.push(await timed(card('cached'), server.auth));
    }

    say(`cold: ${SAMPLES} samples of (fetch a page, render a new card, /og of a new page)`);
    const fetchMs: number[] = [];
    const renderMs: number[] = [];
    const coldOg: number[] = [];
    for (let i = 0; i < 5; i++) {
      await timed(`${site.url}/p/warm${i}`);
      await timed(card(`warm${i}`), server.auth);
      await timed(og(`/p/warm${i}`), ua);
    }
    for (let i = 0; i < SAMPLES; i++) {
      fetchMs.push(await timed(`${site.url}/p/f${i}`));
      renderMs.push(await timed(card(`r${i}`), server.auth));
      coldOg.push(await timed(og(`/p/o${i}`), ua));
    }
    const probe = await fetch(og('/p/probe'), { headers: ua });
    await probe.arrayBuffer();
    say(`a cold /og's Server-Timing: ${probe.headers.get('server-timing')}`);

    const cached = { og: median(cachedOg), card: median(cachedCard) };
    const cold = { og: median(coldOg), fetch: median(fetchMs), render: median(renderMs) };
    const coldBudget = cold.fetch + 1.2 * cold.render;
    const rows: Table = [
      ['measure', 'p50 ms', 'p95 ms', 'target', 'ratio', 'met'],
      [
        'cached GET /render/template',
        cached.card.toFixed(2),
        summarize(cachedCard).p95.toFixed(2),
        '',
        '',
        '',
      ],
      [
        'cached GET /og',
        cached.og.toFixed(2),
        summarize(cachedOg).p95.toFixed(2),
        '≤ 1.1× cached card',
        `${(cached.og / cached.card).toFixed(2)}×`,
        cached.og <= 1.1 * cached.card ? 'yes' : 'no',
      ],
      ['page fetch (from the bench)', cold.fetch.toFixed(2), summarize(fetchMs).p95.toFixed(2), '', '', ''],
      [
        'uncached GET /render/template',
        cold.render.toFixed(2),
        summarize(renderMs).p95.toFixed(2),
        '',
        '',
        '',
      ],
      [
        'cold GET /og (new page)',
        cold.og.toFixed(2),
        summarize(coldOg).p95.toFixed(2),
        `≤ fetch + 1.2× render = ${coldBudget.toFixed(2)}`,
        `${(cold.og / coldBudget).toFixed(2)}×`,
        cold.og <= coldBudget ? 'yes' : 'no',
      ],
    ];
    process.stdout.write(`${textTable(rows)}\n`);
    if (!args['no-docs']) {
      const md = [
        '## Site cards (`GET /og`)',
        '',
        `\`npm run bench:og\` (${new Date().toISOString().slice(0, 10)}; ${machineFacts()}). One connection, sequential requests; cached: ${ROUNDS} interleaved rounds of ${CACHED_PER_ROUND} each; cold: ${SAMPLES} samples, each a page fetch, an uncached card and an /og of a page never read, in turn. The blog template, Facebook's User-Agent (1200×630).`,
        '',
        markdownTable(rows),
      ].join('\n');
      writeSection(path.join(root, 'docs/benchmarks.md'), 'og', md);
    }
  } finally {
    await server.stop();
    site.close();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
