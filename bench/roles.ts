/**
 * What a screenshot costs when it travels from an api node to a worker (CARDSHOT_ROLE=api and
 * worker, issue 31 §1: ≤ 1.15× at p50) against the same capture on one `all` node, in one run on
 * one machine: both on the same PostgreSQL and Redis, the same page (bench/lib/site.ts, a new
 * query string per request so every one is captured), one request at a time, the two setups
 * taking turns so a busy moment of the machine falls on both alike. A second row does the same
 * with full-page captures of a 10,000 px page (a PNG of megabytes through PostgreSQL). Not a
 * test: CI does not run it; all traffic stays on loopback.
 *
 *   npm run bench:roles [-- --requests 40 --no-docs]
 */
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { machineFacts, markdownTable, type Table, textTable, writeSection } from './lib/report.js';
import { type ServerHandle, startServer } from './lib/server.js';
import { startSite } from './lib/site.js';
import { summarize } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '40' },
    'no-docs': { type: 'boolean', default: false },
  },
});
const REQUESTS = Number(args.requests);
const root = path.resolve(import.meta.dirname, '../..');
const entry = path.join(root, 'dist/src/main.js');
const PG_URL = process.env.DATABASE_TEST_URL || 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_TEST_URL || 'redis://127.0.0.1:6379/15';
const SCHEMA = `cardshot_bench_roles_${process.pid}`;
const say = (m: string) => process.stderr.write(`[bench] ${m}\n`);
const fmt = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '–');

async function timed(base: string, auth: Record<string, string>, page: string, extra: string) {
  const start = performance.now();
  const res = await fetch(`${base}/render/url?url=${encodeURIComponent(page)}${extra}`, { headers: auth });
  const body = Buffer.from(await res.arrayBuffer());
  const ms = performance.now() - start;
  if (res.status !== 200) throw new Error(`${base}: ${res.status} ${body.toString().slice(0, 200)}`);
  if (res.headers.get('x-cache') !== 'MISS') throw new Error(`${base}: expected a capture, got a cache hit`);
  // Server-Timing phases (the worker's, as the api node passes them on), for where the time goes.
  const phases: Record<string, number> = {};
  for (const part of (res.headers.get('server-timing') ?? '').split(',')) {
    const m = /^\s*([\w-]+);dur=([\d.]+)/.exec(part);
    if (m) phases[m[1]!] = Number(m[2]);
  }
  return { ms, bytes: body.length, phases };
}

async function waitForWorker(api: ServerHandle) {
  for (const end = Date.now() + 60_000; Date.now() < end; ) {
    const ready = (await (await fetch(`${api.url}/readyz`)).json()) as {
      checks: Record<string, { status: string }>;
    };
    if (ready.checks.workers?.status === 'ok') return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('no worker connected to the api node within 60 s');
}

async function main() {
  const loadAtStart = os.loadavg()[0]!;
  const site = await startSite();
  const shared = {
    DATABASE_URL: PG_URL,
    CARDSHOT_DATABASE_SCHEMA: SCHEMA,
    REDIS_URL,
    CARDSHOT_REDIS_PREFIX: `cardshot-bench-roles:${process.pid}:`,
    CARDSHOT_SECRET: `bench-roles-secret-${process.pid}-0123456789abcdef`,
    CARDSHOT_ALLOW_PRIVATE_HOSTS: site.hostPort,
    CARDSHOT_LOG_LEVEL: 'warn',
    CARDSHOT_JOBS_WORKERS: '0',
    // Nodes of one database share one job results directory, or a node refuses to start (exit 78).
    CARDSHOT_JOBS_RESULTS_DIR: path.join(os.tmpdir(), `cardshot-bench-roles-results-${process.pid}`),
  };
  const servers: ServerHandle[] = [];
  try {
    say('starting an all node, an api node and a worker on one PostgreSQL…');
    const all = await startServer(entry, shared, [], undefined, true);
    servers.push(all);
    const key = all.auth['x-api-key'];
    const worker = await startServer(entry, { ...shared, CARDSHOT_ROLE: 'worker' }, [], key, true);
    servers.push(worker);
    const api = await startServer(entry, { ...shared, CARDSHOT_ROLE: 'api' }, [], key, true);
    servers.push(api);
    await waitForWorker(api);

    const rows: Table = [
      [
        'screenshot, one at a time',
        'all node p50 ms',
        'api → worker p50 ms',
        'ratio (≤ 1.15)',
        'p95 all / api',
        'PNG KB',
      ],
    ];
    const results: Record<string, number> = {};
    for (const [label, page, extra] of [
      ['landing page, 1200×630', site.url, ''],
      ['full page, 10,000 px tall', `${site.url}tall`, '&fullPage=true'],
    ] as const) {
      let n = 0;
      const page1 = () => `${page}?r=${process.pid}-${n++}`;
      // Warm both: browser launched, fonts and images in the page cache of each Chromium.
      for (let i = 0; i < 3; i++) {
        await timed(all.url, all.auth, page1(), extra);
        await timed(api.url, api.auth, page1(), extra);
      }
      const a: number[] = [];
      const r: number[] = [];
      const phaseA: Record<string, number[]> = {};
      const phaseR: Record<string, number[]> = {};
      const keep = (into: Record<string, number[]>, phases: Record<string, number>) => {
        for (const [k, v] of Object.entries(phases)) {
          into[k] ??= [];
          into[k].push(v);
        }
      };
      let bytes = 0;
      for (let i = 0; i < REQUESTS; i++) {
        // Taking turns, starting with each side alike.
        const first = i % 2 === 0;
        const one = first ? await timed(all.url, all.auth, page1(), extra) : undefined;
        const two = await timed(api.url, api.auth, page1(), extra);
        const three = first ? undefined : await timed(all.url, all.auth, page1(), extra);
        a.push((one ?? three)!.ms);
        r.push(two.ms);
        keep(phaseA, (one ?? three)!.phases);
        keep(phaseR, two.phases);
        bytes = two.bytes;
      }
      const sa = summarize(a);
      const sr = summarize(r);
      results[label] = sr.p50 / sa.p50;
      rows.push([
        label,
        fmt(sa.p50),
        fmt(sr.p50),
        `${fmt(sr.p50 / sa.p50, 2)}×`,
        `${fmt(sa.p95)} / ${fmt(sr.p95)}`,
        fmt(bytes / 1024, 0),
      ]);
      say(`${label}: all ${fmt(sa.p50)} ms, api→worker ${fmt(sr.p50)} ms, ${fmt(sr.p50 / sa.p50, 2)}×`);
      const names = [...new Set([...Object.keys(phaseA), ...Object.keys(phaseR)])];
      say(
        `  Server-Timing p50 (all / api→worker): ${names
          .map((n) => `${n} ${fmt(summarize(phaseA[n] ?? []).p50)}/${fmt(summarize(phaseR[n] ?? []).p50)}`)
          .join(', ')}`,
      );
    }
    process.stdout.write(`\n${textTable(rows)}\n`);
    if (!args['no-docs']) {
      writeSection(
        path.join(root, 'docs/benchmarks.md'),
        'roles',
        `## Screenshots through a worker (\`npm run bench:roles\`)

A synchronous \`GET /render/url\` answered by an api node (\`CARDSHOT_ROLE=api\`, no browser)
whose worker (\`CARDSHOT_ROLE=worker\`) captures it, against the same request to one \`all\` node.
All three processes on this machine, one PostgreSQL and one Redis for both setups, the page
served on loopback (bench/lib/site.ts: a web font, six images, a script), a new query string per
request so every request is a capture (X-Cache: MISS), ${REQUESTS} requests per setup one at a
time, the two setups taking turns. The trip adds: the row's insert and NOTIFY, the worker's claim,
the answer written to the row (a PNG of 256 KiB or more as a file in the shared job results
directory, a smaller one as \`bytea\` in the UNLOGGED row), the NOTIFY back, and the api node's
read-and-delete. Goal (issue 31 §1): p50 ≤ 1.15× the \`all\` node's.

${markdownTable(rows)}

${machineFacts()}; load average (1 min) ${fmt(loadAtStart)} at the start and ${fmt(os.loadavg()[0]!)} at the end (other work on the machine: each hop between processes waits for a core); ${new Date().toISOString().slice(0, 10)}.`,
      );
    }
    const worst = Math.max(...Object.values(results));
    say(`worst p50 ratio ${fmt(worst, 2)}× (goal ≤ 1.15×)`);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await rm(shared.CARDSHOT_JOBS_RESULTS_DIR, { recursive: true, force: true });
    await site.close();
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
    await client.query(`DROP SCHEMA IF EXISTS "${SCHEMA}_pgboss" CASCADE`);
    await client.end();
  }
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
