/**
 * The card path (issue 30 §4): what an uncached `/render/template` costs over HTTP against raw
 * takumi drawing a minimal card, and where the difference goes. In one run, in interleaved
 * rounds so a noisy neighbour slows all three alike:
 *   (a) raw takumi in this process: a background and a title, the bundled fonts, 1200×630, PNG;
 *   (b) the built-in `blog` template through the in-process renderer (`renderer.render`);
 *   (c) `POST /render/template` (blog, a distinct title each time) at c=1 against
 *       `node dist/src/main.js` (NODE_ENV=production), timed by the client, with the server's
 *       own Server-Timing phases for the same requests;
 *   (d) the floor under (c)'s HTTP part: a bare `node:http` child answering every POST with a
 *       fixed PNG of (c)'s size, through the same client;
 *   (e) blog's three texts on a flat card, raw takumi: blog's content without its design;
 *   (f) (b) with takumi asked for `raw` pixels instead of a PNG: blog drawn and not encoded, the
 *       least any PNG encoder, however fast, could leave of (b).
 *
 *   npm run bench:card-path [-- --rounds 20 --per-round 15 --no-docs]
 *
 * Not a test: CI does not run it. All traffic goes to a child server on 127.0.0.1.
 */

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Node, RenderOptions } from '@takumi-rs/core';
import { createTemplateRenderer, loadTakumiEngine } from '../src/render/template/renderer.js';
import { FALLBACK_FAMILIES, FAMILY } from '../src/render/text/fonts.js';
import { machineFacts, markdownTable, type Table, textTable, writeSection } from './lib/report.js';
import { startServer } from './lib/server.js';
import { type Summary, summarize } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '20' },
    'per-round': { type: 'string', default: '15' },
    'no-docs': { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(args.rounds);
const PER_ROUND = Number(args['per-round']);
const WARM_UP = 30;
const TARGET = 1.25;
const root = path.resolve(import.meta.dirname, '../..');
const say = (m: string) => process.stderr.write(`[bench] ${m}\n`);
const ms = (v: number) => v.toFixed(2);

// Distinct titles of one length: the same fitted size, so every sample draws the same amount.
const title = (tag: string, i: number) =>
  `Shipping faster social cards, part ${tag}${String(i).padStart(5, '0')}: what we measured`;
const subtitle = 'Rendering, caching and the cost of every millisecond on a small two-core server.';
const brand = 'Cardshot Engineering';

/**
 * (e): blog's content, nothing of its design: the same three texts (brand, title, subtitle) in
 * blog's fonts and sizes at og, stacked on a flat background; no monogram, no corner arcs, no
 * fitting or balancing. What separates the design's cost from its content's.
 */
function contentCard(text: string): Node {
  const line = (t: string, style: Record<string, unknown>) => ({ type: 'text', text: t, style });
  return {
    type: 'container',
    style: {
      width: 1200,
      height: 630,
      display: 'flex',
      flexDirection: 'column',
      justifyContent: 'space-between',
      padding: '68px 80px',
      backgroundColor: '#F6F1E9',
    },
    children: [
      line(brand, { fontFamily: `"${FAMILY.sans}"`, fontWeight: 600, fontSize: 24, color: '#1F1A17' }),
      {
        type: 'container',
        style: { display: 'flex', flexDirection: 'column', gap: 24 },
        children: [
          line(text, {
            fontFamily: `"${FAMILY.serif}"`,
            fontWeight: 700,
            fontSize: 76,
            lineHeight: 1.1,
            color: '#1F1A17',
            maxWidth: 1000,
          }),
          line(subtitle, {
            fontFamily: `"${FAMILY.sans}"`,
            fontSize: 30,
            lineHeight: 1.4,
            color: '#6B625A',
            maxWidth: 860,
          }),
        ],
      },
    ],
  } as Node;
}

/** (a): the least a card can be: one background, one line-wrapped title, nothing fitted. */
function minimalCard(text: string): Node {
  return {
    type: 'container',
    style: {
      width: 1200,
      height: 630,
      display: 'flex',
      alignItems: 'flex-end',
      padding: '68px 80px',
      backgroundColor: '#F6F1E9',
    },
    children: [
      {
        type: 'text',
        text,
        style: {
          fontFamily: `"${FAMILY.serif}"`,
          fontWeight: 700,
          fontSize: 76,
          lineHeight: 1.1,
          color: '#1F1A17',
        },
      },
    ],
  } as Node;
}

/** One keep-alive connection, as autocannon at c=1 holds; returns the time and Server-Timing. */
function createClient(url: string, headers: Record<string, string>) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const target = new URL(url);
  return {
    post(body: string): Promise<{ ms: number; status: number; timing: string; bytes: number }> {
      return new Promise((resolve, reject) => {
        const start = performance.now();
        const req = request(
          {
            agent,
            host: target.hostname,
            port: target.port,
            path: target.pathname,
            method: 'POST',
            headers: {
              ...headers,
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(body),
            },
          },
          (res) => {
            let bytes = 0;
            res.on('data', (c: Buffer) => {
              bytes += c.length;
            });
            res.on('end', () =>
              resolve({
                ms: performance.now() - start,
                status: res.statusCode ?? 0,
                timing: String(res.headers['server-timing'] ?? ''),
                bytes,
              }),
            );
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}

/** CPU milliseconds this process has used (all threads: takumi draws off the main thread). */
const ownCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/**
 * CPU milliseconds a child has used, all threads, from the scheduler's nanosecond counters
 * (`/proc/PID/task/TID/schedstat`): /proc/PID/stat counts 10 ms ticks, too coarse for one card.
 */
function childCpu(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended between the listing and the read: its time is lost, a few µs at most.
    }
  }
  return ns / 1e6;
}

/**
 * A bare `node:http` server in a child process that reads the body and answers a fixed PNG of
 * `bytes` bytes: what a request costs here before any framework, auth or render.
 */
async function startBareServer(bytes: number) {
  const code = `const body = Buffer.alloc(${bytes}, 7);
require('node:http').createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => { res.writeHead(200, { 'content-type': 'image/png', 'server-timing': 'cache;dur=0.0' }); res.end(body); });
}).listen(0, '127.0.0.1', function () { process.stdout.write(String(this.address().port) + '\\n'); });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return { url: `http://127.0.0.1:${line.toString().trim()}/`, stop: () => child.kill() };
}

async function main() {
  const server = await startServer(path.join(root, 'dist/src/main.js'), { CARDSHOT_LOG_LEVEL: 'warn' });
  const client = createClient(`${server.url}/render/template`, server.auth);
  // 30 KB: blog's PNG size, so the floor moves as many bytes as (c).
  const bare = await startBareServer(30 * 1024);
  const bareClient = createClient(bare.url, {});
  try {
    const engine = await loadTakumiEngine();
    const renderer = await createTemplateRenderer();
    // (f): a second engine whose every draw returns raw pixels; the 3 MB buffer is let go at
    // once (transfer(0)), as a real encoder would, so the heap's churn does not slow the rest.
    const rawEngine = await loadTakumiEngine();
    const drawPng = rawEngine.render.bind(rawEngine);
    rawEngine.render = (async (node: Node, options?: RenderOptions) => {
      const pixels = await drawPng(node, { ...options, format: 'raw' });
      // ES2024's ArrayBuffer.transfer (Node 22+): detaching frees the pixels now, not at a GC.
      (pixels.buffer as ArrayBuffer & { transfer(length: number): ArrayBuffer }).transfer(0);
      return Buffer.alloc(0);
    }) as typeof rawEngine.render;
    const rawRenderer = await createTemplateRenderer(undefined, rawEngine);
    const fontFamilies = [...FALLBACK_FAMILIES];
    const raw = (i: number, tag = 'a') =>
      engine.render(minimalCard(title(tag, i)), { width: 1200, height: 630, format: 'png', fontFamilies });
    const content = (i: number, tag = 'e') =>
      engine.render(contentCard(title(tag, i)), { width: 1200, height: 630, format: 'png', fontFamilies });
    const blog = (i: number, tag = 'b') => renderer.render('blog', { title: title(tag, i), subtitle, brand });
    const blogRaw = (i: number, tag = 'f') =>
      rawRenderer.render('blog', { title: title(tag, i), subtitle, brand });
    let uniq = 0;
    const http = async () => {
      const r = await client.post(
        JSON.stringify({ template: 'blog', title: title('c', uniq++), subtitle, brand }),
      );
      if (r.status !== 200 || !r.timing.includes('cache;')) throw new Error(`HTTP ${r.status}: ${r.timing}`);
      return r;
    };
    for (let i = 0; i < WARM_UP; i++) {
      await raw(i, 'w');
      await content(i, 'w');
      await blog(i, 'w');
      await blogRaw(i, 'w');
      await http();
      await bareClient.post('{}');
    }

    const a: number[] = [];
    const b: number[] = [];
    const c: number[] = [];
    const d: number[] = [];
    const e: number[] = [];
    const f: number[] = [];
    const cpu = {
      e: [] as number[],
      a: [] as number[],
      b: [] as number[],
      c: [] as number[],
      client: [] as number[],
    };
    const sizes = { a: 0, b: 0, c: 0, e: 0 };
    const phases: Record<string, number[]> = {};
    for (let r = 0; r < ROUNDS; r++) {
      if (r % 5 === 0)
        say(`round ${r + 1}/${ROUNDS}: ${PER_ROUND} each of raw takumi (two cards), blog in-process, HTTP`);
      for (let i = 0; i < PER_ROUND; i++) {
        const n = r * 1000 + i;
        let start = performance.now();
        let cpu0 = ownCpu();
        sizes.a = (await raw(n)).length;
        a.push(performance.now() - start);
        cpu.a.push(ownCpu() - cpu0);
        start = performance.now();
        cpu0 = ownCpu();
        sizes.e = (await content(n)).length;
        e.push(performance.now() - start);
        cpu.e.push(ownCpu() - cpu0);
        start = performance.now();
        cpu0 = ownCpu();
        sizes.b = (await blog(n)).png.length;
        b.push(performance.now() - start);
        cpu.b.push(ownCpu() - cpu0);
        start = performance.now();
        await blogRaw(n);
        f.push(performance.now() - start);
        d.push((await bareClient.post(JSON.stringify({ template: 'blog', title: title('d', n) }))).ms);
        const server0 = childCpu(server.pid);
        cpu0 = ownCpu();
        const res = await http();
        cpu.client.push(ownCpu() - cpu0);
        cpu.c.push(childCpu(server.pid) - server0);
        c.push(res.ms);
        sizes.c = res.bytes;
        const add = (name: string, v: number) => {
          phases[name] = [...(phases[name] ?? []), v];
        };
        for (const m of res.timing.matchAll(/(\w+);dur=([\d.]+)/g)) add(m[1]!, Number(m[2]));
        // The client's view minus the server's own total: sockets, HTTP parsing, the body's bytes.
        add('outside', res.ms - Number(res.timing.match(/total;dur=([\d.]+)/)?.[1] ?? 0));
      }
    }
    await renderer.close();
    await rawRenderer.close();
    return {
      a: summarize(a),
      b: summarize(b),
      c: summarize(c),
      d: summarize(d),
      e: summarize(e),
      f: summarize(f),
      cpu: {
        a: summarize(cpu.a),
        e: summarize(cpu.e),
        b: summarize(cpu.b),
        c: summarize(cpu.c),
        client: summarize(cpu.client),
      },
      sizes,
      phases: Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, summarize(v)])),
    };
  } finally {
    client.close();
    bareClient.close();
    bare.stop();
    await server.stop();
  }
}

type Results = Awaited<ReturnType<typeof main>>;

function tables(res: Results): Table[] {
  const row = (name: string, s: Summary, bytes?: number) => [
    name,
    String(s.n),
    ms(s.p50),
    ms(s.p95),
    ms(s.mean),
    bytes === undefined ? '' : (bytes / 1024).toFixed(1),
  ];
  const ratio = res.c.p50 / res.a.p50;
  return [
    [
      ['path (1200×630 PNG)', 'n', 'p50 ms', 'p95 ms', 'mean ms', 'PNG KB'],
      row('(a) raw takumi, minimal card', res.a, res.sizes.a),
      row("(e) raw takumi, blog's three texts on a flat card", res.e, res.sizes.e),
      row('(b) blog, renderer.render in-process', res.b, res.sizes.b),
      row('(f) blog in-process, drawn as raw pixels (no PNG encode)', res.f),
      row('(c) blog, POST /render/template uncached, c=1', res.c, res.sizes.c),
      row('(d) bare node:http answering 30 KB (no render)', res.d, 30 * 1024),
    ],
    [
      ['CPU per card (all threads; robust to a busy machine)', 'p50 ms', 'mean ms', '÷ (a) p50'],
      ...(
        [
          ['(a) raw takumi, this process', res.cpu.a],
          ["(e) raw takumi, blog's texts, this process", res.cpu.e],
          ['(b) blog in-process, this process', res.cpu.b],
          ['(c) the server process, during the request', res.cpu.c],
          ['(c) the client (this process), during the request', res.cpu.client],
        ] as const
      ).map(([name, s]) => [name, ms(s.p50), ms(s.mean), `${(s.p50 / res.cpu.a.p50).toFixed(2)}×`]),
    ],
    [
      ['(c) where the time goes (p50 of each phase)', 'ms'],
      ...Object.entries(res.phases).map(([k, s]) => [
        k === 'outside' ? 'outside the server total (client, socket, HTTP)' : `server ${k}`,
        ms(s.p50),
      ]),
    ],
    [
      ['ratio (p50)', 'measured', 'target', 'result'],
      ['(b) / (a): the blog design', `${(res.b.p50 / res.a.p50).toFixed(2)}×`, '', ''],
      ["(e) / (a): blog's content alone", `${(res.e.p50 / res.a.p50).toFixed(2)}×`, '', ''],
      ["(b) / (e): blog's design beyond its content", `${(res.b.p50 / res.e.p50).toFixed(2)}×`, '', ''],
      ['(c) / (b): the server around the render', `${(res.c.p50 / res.b.p50).toFixed(2)}×`, '', ''],
      [
        '(c) − (b) − (d): the server beyond a bare HTTP answer',
        `${ms(res.c.p50 - res.b.p50 - res.d.p50)} ms`,
        '',
        '',
      ],
      ['(c) / (a): the card path', `${ratio.toFixed(2)}×`, `≤ ${TARGET}×`, ratio <= TARGET ? 'PASS' : 'FAIL'],
      [
        "(c) / (e): the card path against blog's content on a flat card",
        `${(res.c.p50 / res.e.p50).toFixed(2)}×`,
        '',
        '',
      ],
      [
        '((b) + (d)) / (a): the floor, a server costing only a bare HTTP answer',
        `${((res.b.p50 + res.d.p50) / res.a.p50).toFixed(2)}×`,
        '',
        '',
      ],
      [
        '((f) + (d)) / (a): the floor with a free PNG encoder too',
        `${((res.f.p50 + res.d.p50) / res.a.p50).toFixed(2)}×`,
        '',
        '',
      ],
    ],
  ];
}

const started = new Date();
const startLoad = os.loadavg()[0]!;
const res = await main();
const all = tables(res);
process.stdout.write(`\n${all.map(textTable).join('\n\n')}\n`);

if (!args['no-docs']) {
  const md = `## The card path (\`bench/card-path.ts\`)

Command: \`npm run bench:card-path\` (\`-- --rounds N --per-round N\` to change).
Run: ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machineFacts()};
1-minute load average ${startLoad.toFixed(1)} at the start.

How it is measured: ${ROUNDS} rounds after ${WARM_UP} warm-up calls of each, every round ${PER_ROUND}
× (a), (e), (b), (f), (d) then (c) in turn, so the six share the machine's noise. (a) is one takumi
engine with the bundled fonts drawing a container with a background and one title text node;
(e) is the same engine drawing blog's brand, title and subtitle in blog's fonts and sizes,
stacked on a flat background (no monogram, corner arcs, fitting or balancing);
(b) is \`createTemplateRenderer()\` drawing \`blog\` (title, subtitle, brand); (f) is (b) with
a second engine answering takumi's \`raw\` pixels instead of its PNG (drawn, never encoded, the
buffer let go at once); (c) is (b)'s
card posted to \`node dist/src/main.js\` (NODE_ENV=production, log level warn, fresh data dir,
defaults otherwise) over one keep-alive connection, a distinct title each time, timed from the
request's first byte out to the response's last byte in; (d) is a bare \`node:http\` child
answering a fixed 30 KB body through the same client. Every title has the same length.

${all.map(markdownTable).join('\n\n')}
`;
  writeSection(path.join(root, 'docs/benchmarks.md'), 'card-path', md);
  say('wrote docs/benchmarks.md');
}
