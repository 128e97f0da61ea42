/**
 * What glibc's allocator settings cost in card throughput (issue 26 §5). The soak
 * (bench/soak.ts) measures what they save in RSS; this runs servers with each setting side by
 * side in the same run, rounds interleaved, and prints throughput and p50 as ratios to glibc's
 * defaults. New cards every request (a fresh title), so each is a real render, not a cache hit.
 *
 *   npm run bench:allocator [-- --rounds 4 --cards 130 --concurrency 4]
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineFacts, markdownTable, type Table, textTable, writeSection } from './lib/report.js';
import { type ServerHandle, startServer } from './lib/server.js';
import { summarize } from './lib/stats.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const ROUNDS = arg('rounds', 4);
const CARDS = arg('cards', 130);
const CONCURRENCY = arg('concurrency', 4);

/** The variants compared; the first is the baseline the ratios are to. */
const VARIANTS: Array<{ name: string; env: Record<string, string> }> = [
  { name: 'glibc defaults', env: {} },
  { name: 'MALLOC_ARENA_MAX=2 (shipped)', env: { MALLOC_ARENA_MAX: '2' } },
  {
    name: 'MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=262144',
    env: { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '262144' },
  },
];

/** One round: CARDS new cards at CONCURRENCY; requests per second and the latencies. */
async function round(server: ServerHandle, tag: string): Promise<{ rps: number; p50: number }> {
  let next = 0;
  const times: number[] = [];
  const started = performance.now();
  const worker = async () => {
    while (next < CARDS) {
      const k = next++;
      const template = ['blog', 'product', 'saas'][k % 3]!;
      const title = encodeURIComponent(
        `Round ${tag}: card number ${k}, ${Math.random().toString(36).slice(2)}`,
      );
      const url = `${server.url}/render/template?template=${template}&title=${title}&subtitle=A%20subtitle%20under%20it`;
      const t = performance.now();
      const res = await fetch(url, { headers: server.auth });
      const body = Buffer.from(await res.arrayBuffer());
      if (res.status !== 200) throw new Error(`${res.status} ${body.toString().slice(0, 200)}`);
      times.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { rps: CARDS / ((performance.now() - started) / 1000), p50: summarize(times).p50 };
}

const median = (xs: number[]) => summarize(xs).p50;

const servers: ServerHandle[] = [];
try {
  for (const v of VARIANTS) servers.push(await startServer(path.join(root, 'dist/src/main.js'), v.env));
  const results = VARIANTS.map(() => ({ rps: [] as number[], p50: [] as number[], rss: 0 }));
  for (let r = 0; r < ROUNDS; r++) {
    for (const [i, server] of servers.entries()) {
      const out = await round(server, `${r}-${i}`);
      results[i]!.rps.push(out.rps);
      results[i]!.p50.push(out.p50);
      results[i]!.rss = server.memory().rssMiB;
    }
  }
  const base = results[0]!;
  const rows: Table = [
    ['server allocator', 'cards/s (median)', 'ratio', 'p50 ms (median)', 'ratio', 'RSS MiB'],
  ];
  for (const [i, v] of VARIANTS.entries()) {
    const r = results[i]!;
    rows.push([
      v.name,
      median(r.rps).toFixed(1),
      `${(median(r.rps) / median(base.rps)).toFixed(2)}×`,
      median(r.p50).toFixed(1),
      `${(median(r.p50) / median(base.p50)).toFixed(2)}×`,
      r.rss.toFixed(0),
    ]);
  }
  const intro = `Command: \`npm run bench:allocator\`. Run: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machineFacts()}.\n${ROUNDS} interleaved rounds of ${CARDS} new cards at c=${CONCURRENCY} against each server (all running at once, one loaded at a time).`;
  process.stdout.write(`${intro}\n\n${textTable(rows)}\n`);
  writeSection(
    path.join(root, 'docs/benchmarks.md'),
    'allocator',
    `## Allocator settings and card throughput (\`bench/allocator.ts\`)\n\n${intro}\n\n${markdownTable(rows)}\n\nRSS after the rounds is not the soak's figure (minutes, not seconds, of mixed cards): see the soak section.`,
  );
} finally {
  await Promise.all(servers.map((s) => s.stop()));
}
