/**
 * Scale-out questions, each answered against its baseline in the same run: (1) which second
 * cache tier answers a repeat faster, the node's disk or Redis (the tier order); (2) what
 * nginx costs in front of one node, and what a second node behind it adds, for uncached and
 * cached cards; (3) a card served from the Redis tier against one from the node's memory;
 * (4) nginx with proxy buffering on against off, for a screenshot-sized PNG. Not a test: CI
 * does not run it; all traffic stays on loopback (PostgreSQL and Redis are the machine's).
 *
 *   npm run bench:scale [-- --seconds 5 --rounds 2 --no-docs]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import pg from 'pg';
import { pino } from 'pino';
import type { CacheEntry, PngCache } from '../src/cache/cache.js';
import { createDiskCache } from '../src/cache/disk.js';
import { createRedisCache } from '../src/cache/redis.js';
import { openRedis } from '../src/redis/open.js';
import { startNginx } from '../test/helpers/nginx.js';
import { type LoadResult, mergeLoads, runLoad } from './lib/load.js';
import { machineFacts, markdownTable, type Table, textTable, writeSection } from './lib/report.js';
import { type ServerHandle, startServer } from './lib/server.js';
import { startSite } from './lib/site.js';
import { summarize } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '2' },
    'no-docs': { type: 'boolean', default: false },
  },
});
const SECONDS = Number(args.seconds);
const ROUNDS = Number(args.rounds);
const root = path.resolve(import.meta.dirname, '../..');
const entry = path.join(root, 'dist/src/main.js');
const PG_URL = process.env.DATABASE_TEST_URL || 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_TEST_URL || 'redis://127.0.0.1:6379/15';
const PREFIX = `cardshot-bench-scale:${process.pid}:`;
const SCHEMA = `cardshot_bench_${process.pid}`;
const say = (m: string) => process.stderr.write(`[bench] ${m}\n`);
const fmt = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '–');

// ---------------------------------------------------------------------------------------
// (1) Second tier: a repeat read from the node's disk tier against one from Redis.

async function tierReads(): Promise<Table> {
  const log = pino({ level: 'silent' });
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-bench-tier-'));
  // A generous time-out: this measures read latency, not fail-over (a slow moment must not open the breaker).
  const redis = await openRedis({ url: REDIS_URL, prefix: PREFIX, timeoutMs: 2000, log });
  const disk = createDiskCache({ dir, maxBytes: 1 << 30 });
  const shared = createRedisCache({ redis, maxEntryBytes: 8 << 20, ttlSeconds: 600, log });
  const rows: Table = [['second-tier hit (p50 of rounds)', 'disk µs', 'Redis µs', 'Redis / disk']];
  for (const [label, bytes] of [
    ['card-sized PNG, 30 KB', 30_000],
    ['screenshot-sized PNG, 530 KB', 530_000],
  ] as const) {
    const entry: CacheEntry = {
      body: Buffer.alloc(bytes, 7),
      etag: 'e',
      storedAt: Date.now(),
      expiresAt: null,
    };
    const keys = Array.from({ length: 50 }, (_, i) => `tier${bytes}k${i}`);
    for (const k of keys) await Promise.all([disk.set(k, entry), shared.set(k, entry)]);
    const perRead = async (c: PngCache) => {
      const start = process.hrtime.bigint();
      for (let i = 0; i < 200; i++) if (!(await c.get(keys[i % keys.length]!))) throw new Error('miss');
      return Number(process.hrtime.bigint() - start) / 1000 / 200;
    };
    const d: number[] = [];
    const r: number[] = [];
    await perRead(disk);
    await perRead(shared);
    for (let i = 0; i < 7; i++) {
      d.push(await perRead(disk));
      r.push(await perRead(shared));
    }
    const dp = summarize(d).p50;
    const rp = summarize(r).p50;
    rows.push([label, fmt(dp), fmt(rp), `${fmt(rp / dp, 2)}×`]);
  }
  await disk.close();
  await shared.close();
  await redis.close();
  await rm(dir, { recursive: true, force: true });
  return rows;
}

// ---------------------------------------------------------------------------------------
// HTTP scenarios.

let uniq = 0;
const cardPath = (title: string) => `/render/template?${new URLSearchParams({ template: 'blog', title })}`;

interface Variant {
  label: string;
  base: string;
  auth: Record<string, string>;
}

/** One load run of `kind` against `v`. */
function once(v: Variant, kind: 'uncached' | 'cached' | 'screenshot', connections: number, shotPath = '') {
  return runLoad({
    url: v.base,
    connections,
    duration: SECONDS,
    headers: v.auth,
    nextPath:
      kind === 'uncached'
        ? () => cardPath(`Scale bench ${process.pid} ${uniq++}`)
        : () => (kind === 'cached' ? cardPath('Scale bench cached') : shotPath),
  });
}

/**
 * Every variant once per round, in turn, so the machine's noise (other jobs share these
 * cores) falls on all of them alike; the runs of each variant are merged.
 */
async function interleaved(
  variants: Variant[],
  kind: 'uncached' | 'cached' | 'screenshot',
  connections: number,
  shotPath = '',
): Promise<LoadResult[]> {
  const runs: LoadResult[][] = variants.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    for (const [i, v] of variants.entries()) runs[i]!.push(await once(v, kind, connections, shotPath));
  }
  return runs.map((r) => mergeLoads(r));
}

const row = (label: string, r: LoadResult, base?: LoadResult): string[] => [
  label,
  fmt(r.reqPerSec, 0),
  fmt(r.latency.p50, 2),
  fmt(r.latency.p99, 2),
  base ? `${fmt(r.reqPerSec / base.reqPerSec, 2)}×` : '1.00×',
  String(r.failed + r.errors + r.unavailable),
];

async function main() {
  say(`machine: ${machineFacts()}`);
  say('(1) disk vs Redis as the second tier…');
  const tiers = await tierReads();
  process.stdout.write(`${textTable(tiers)}\n\n`);

  const setup = new pg.Client({ connectionString: PG_URL });
  await setup.connect();
  const shared = {
    DATABASE_URL: PG_URL,
    CARDSHOT_DATABASE_SCHEMA: SCHEMA,
    REDIS_URL,
    CARDSHOT_REDIS_PREFIX: PREFIX,
    CARDSHOT_SECRET: 'bench-scale-secret-0123456789abcdefghij',
    // Nodes on one database share one job results directory (a node with its own refuses to start).
    CARDSHOT_JOBS_RESULTS_DIR: path.join(os.tmpdir(), `cardshot-bench-scale-results-${process.pid}`),
    CARDSHOT_CACHE_MEMORY_BYTES: String(64 << 20),
    CARDSHOT_LOG_LEVEL: 'warn',
  };
  const servers: ServerHandle[] = [];
  const stops: Array<() => Promise<void>> = [];
  // If this process dies before `finally` (an uncaught error), its servers must not outlive it.
  process.once('exit', () => {
    for (const s of servers) {
      try {
        process.kill(s.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  });
  try {
    say('(2) one node direct, one node through nginx, two nodes through nginx…');
    const solo = await startServer(entry, {
      CARDSHOT_LOG_LEVEL: 'warn',
      CARDSHOT_CACHE_MEMORY_BYTES: String(64 << 20),
    });
    servers.push(solo);
    const nodeA = await startServer(entry, shared);
    servers.push(nodeA);
    const nodeB = await startServer(entry, shared, [], nodeA.auth['x-api-key']);
    servers.push(nodeB);
    const port = (s: ServerHandle) => Number(new URL(s.url).port);
    const oneBehind = await startNginx(root, [port(solo)]);
    stops.push(oneBehind.stop);
    const twoBehind = await startNginx(root, [port(nodeA), port(nodeB)]);
    stops.push(twoBehind.stop);

    const http: Table = [['cards over HTTP', 'req/s', 'p50 ms', 'p99 ms', 'vs one node direct', 'errors']];
    for (const [kind, c] of [
      ['uncached', 8],
      ['cached', 32],
    ] as const) {
      const [direct, viaNginx, two] = (await interleaved(
        [
          { label: 'direct', base: solo.url, auth: solo.auth },
          { label: 'nginx', base: oneBehind.url, auth: solo.auth },
          { label: 'two', base: twoBehind.url, auth: nodeA.auth },
        ],
        kind,
        c,
      )) as [LoadResult, LoadResult, LoadResult];
      http.push(row(`${kind}, c=${c}: one node, direct`, direct));
      http.push(row(`${kind}, c=${c}: one node behind nginx`, viaNginx, direct));
      http.push(row(`${kind}, c=${c}: two nodes behind nginx (PostgreSQL, Redis)`, two, direct));
    }
    process.stdout.write(`${textTable(http)}\n\n`);

    say('(3) a cached card from the Redis tier vs from the node’s memory…');
    const redisOnly = await startServer(
      entry,
      { ...shared, CARDSHOT_CACHE_MEMORY_BYTES: '0', CARDSHOT_CACHE_DISK_BYTES: '0' },
      [],
      nodeA.auth['x-api-key'],
    );
    servers.push(redisOnly);
    // Rendered and stored in Redis by a request to node A first.
    await fetch(`${nodeA.url}${cardPath('Scale bench cached')}`, { headers: nodeA.auth });
    const [fromMemory, fromRedis] = (await interleaved(
      [
        { label: 'memory', base: nodeA.url, auth: nodeA.auth },
        { label: 'redis', base: redisOnly.url, auth: nodeA.auth },
      ],
      'cached',
      8,
    )) as [LoadResult, LoadResult];
    const tier: Table = [['cached card, c=8', 'req/s', 'p50 ms', 'p99 ms', 'vs memory', 'errors']];
    tier.push(row('memory tier (the node rendered it)', fromMemory));
    tier.push(row('Redis tier (memory and disk off)', fromRedis, fromMemory));
    process.stdout.write(`${textTable(tier)}\n\n`);

    say('(4) nginx proxy buffering on vs off for a ~0.5 MB PNG…');
    const site = await startSite();
    stops.push(site.close);
    const shotNode = await startServer(entry, {
      CARDSHOT_LOG_LEVEL: 'warn',
      CARDSHOT_ALLOW_PRIVATE_HOSTS: site.hostPort,
    });
    servers.push(shotNode);
    const shotPath = `/render/url?${new URLSearchParams({ url: `${site.url}?bench-scale` })}`;
    const first = await fetch(`${shotNode.url}${shotPath}`, { headers: shotNode.auth });
    const pngBytes = (await first.arrayBuffer()).byteLength;
    const on = await startNginx(root, [port(shotNode)]);
    stops.push(on.stop);
    const off = await startNginx(root, [port(shotNode)], (c) => {
      if (!c.includes('proxy_buffering on;')) throw new Error('deploy/nginx.conf no longer buffers');
      return c.replace('proxy_buffering on;', 'proxy_buffering off;');
    });
    stops.push(off.stop);
    const buffering: Table = [
      [
        `cached screenshot (${fmt(pngBytes / 1000, 0)} KB), c=16`,
        'req/s',
        'p50 ms',
        'p99 ms',
        'vs buffered',
        'errors',
      ],
    ];
    const [mOn, mOff] = (await interleaved(
      [
        { label: 'on', base: on.url, auth: shotNode.auth },
        { label: 'off', base: off.url, auth: shotNode.auth },
      ],
      'screenshot',
      16,
      shotPath,
    )) as [LoadResult, LoadResult];
    buffering.push(row('proxy_buffering on, 64 × 16k (deploy/nginx.conf)', mOn));
    buffering.push(row('proxy_buffering off (streamed)', mOff, mOn));
    process.stdout.write(`${textTable(buffering)}\n\n`);

    const memory: Table = [['node', 'RSS MiB']];
    memory.push(['one node (SQLite, no Redis) after the runs', fmt(solo.memory().rssMiB)]);
    memory.push(['node A (PostgreSQL, Redis) after the runs', fmt(nodeA.memory().rssMiB)]);
    process.stdout.write(`${textTable(memory)}\n`);

    if (!args['no-docs']) {
      const md = [
        '## Scale-out (`bench/scale.ts`)',
        '',
        `Command: \`npm run bench:scale\` (\`-- --seconds N --rounds N\`). Run: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machineFacts()}.`,
        `Load generator, nginx, every node, PostgreSQL and Redis share these cores; HTTP runs are ${ROUNDS} × ${SECONDS} s each, merged.`,
        '',
        markdownTable(tiers),
        '',
        markdownTable(http),
        '',
        markdownTable(tier),
        '',
        markdownTable(buffering),
        '',
        markdownTable(memory),
      ].join('\n');
      writeSection(path.join(root, 'docs/benchmarks.md'), 'scale', md);
      say('docs/benchmarks.md updated');
    }
  } finally {
    for (const s of stops.reverse()) await s().catch(() => {});
    for (const s of servers) await s.stop().catch(() => {});
    await setup.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`).catch(() => {});
    await setup.end();
    await rm(shared.CARDSHOT_JOBS_RESULTS_DIR, { recursive: true, force: true });
    const r = new Redis(REDIS_URL);
    const keys = await r.keys(`${PREFIX}*`);
    if (keys.length) await r.del(...keys);
    r.disconnect();
  }
}

await main();
