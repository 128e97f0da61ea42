/**
 * The job queue (issue 28 §0, §3): pg-boss 12 with its defaults vs Cardshot's tuned pg-boss vs
 * the SQLite queue, in one run. Questions: (1) throughput of 1,000 tasks of 5 ms at concurrency
 * 4; (2) fairness: 5 tasks of group B added behind 10,000 of group A, B's finish time vs B alone;
 * (3) the per-group cap across two nodes, as observed; (4) RSS each engine adds (a child process
 * per engine). Not a test; all traffic stays on loopback (PostgreSQL on 127.0.0.1).
 *
 *   npm run bench:queue [-- --no-docs] [-- --rounds 3]
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { PgBoss } from 'pg-boss';
import { createJobQueue } from '../src/jobs/queue/open.js';
import type { QueuePolicy } from '../src/jobs/queue/types.js';
import { loadConfig } from '../src/settings.js';
import { machineFacts, markdownTable, type Table, textTable, writeSection } from './lib/report.js';
import { summarize } from './lib/stats.js';

const { values: args } = parseArgs({
  options: {
    'no-docs': { type: 'boolean', default: false },
    rounds: { type: 'string', default: '3' },
    'rss-of': { type: 'string' },
  },
});
const root = path.resolve(import.meta.dirname, '../..');
const PG_URL = loadConfig().databaseUrl || 'postgres://postgres@127.0.0.1:5432/test';
const say = (m: string) => process.stderr.write(`[bench] ${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TASKS = 1000;
/** pg-boss defaults are poll-bound (~170 ms a task in the note): a full 1,000 would take minutes. */
const DEFAULT_TASKS = 200;
const TASK_MS = 5;
const policy: QueuePolicy = { retryLimit: 1, retryDelayMs: 1000, retryBackoff: true, expireMs: 30_000 };
const schemas: string[] = [];
const dirs: string[] = [];

type Engine = 'tuned' | 'sqlite';

/** A Cardshot queue on one engine, in a fresh schema or data dir. */
async function openEngine(
  engine: Engine,
  storage?: { databaseUrl: string; dataDir: string; databaseSchema: string },
) {
  if (!storage) {
    if (engine === 'tuned') {
      const schema = `cardshot_bench_${randomBytes(4).toString('hex')}`;
      schemas.push(schema, `${schema}_pgboss`);
      storage = { databaseUrl: PG_URL, dataDir: '/nonexistent', databaseSchema: schema };
    } else {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'cardshot-bench-queue-'));
      dirs.push(dir);
      storage = { databaseUrl: '', dataDir: dir, databaseSchema: 'public' };
    }
  }
  return { queue: await createJobQueue(storage), storage };
}

const spread = (n: number, groups: number) =>
  Array.from({ length: n }, (_, i) => ({ group: `acc_${i % groups}`, data: { i } }));

/** ms from adding `n` 5-ms tasks (4 groups) to the last one done, at concurrency 4. */
async function throughputOurs(engine: Engine, n: number): Promise<number> {
  const { queue } = await openEngine(engine);
  try {
    const name = `q_${randomBytes(4).toString('hex')}`;
    await queue.createQueue(name, policy);
    let done = 0;
    await queue.work(name, { concurrency: 4, groupLimit: () => 4 }, async () => {
      await sleep(TASK_MS);
      done++;
    });
    const start = performance.now();
    await queue.add(name, spread(n, 4));
    while (done < n) await sleep(2);
    return performance.now() - start;
  } finally {
    await queue.close();
  }
}

/** The same with pg-boss as it comes: send in one insert, work() with localConcurrency 4. */
async function throughputDefaults(n: number): Promise<number> {
  const schema = `cardshot_bench_${randomBytes(4).toString('hex')}`;
  schemas.push(schema);
  const boss = new PgBoss({ connectionString: PG_URL, schema });
  boss.on('error', () => {});
  await boss.start();
  try {
    const name = 'bench';
    await boss.createQueue(name);
    let done = 0;
    await boss.work(name, { localConcurrency: 4 }, async () => {
      await sleep(TASK_MS);
      done++;
    });
    const start = performance.now();
    await boss.insert(
      name,
      spread(n, 4).map((t) => ({ data: t.data, group: { id: t.group } })),
    );
    while (done < n) await sleep(2);
    return performance.now() - start;
  } finally {
    await boss.stop({ graceful: false, close: true, timeout: 1000 });
  }
}

/** B's 5 tasks: ms from their add to the 5th done, alone and behind A's 10,000. */
async function fairness(engine: Engine): Promise<{ alone: number; behind: number; addMs: number }> {
  const { queue } = await openEngine(engine);
  try {
    const run = async (backlog: number) => {
      const name = `q_${randomBytes(4).toString('hex')}`;
      await queue.createQueue(name, policy);
      let addMs = 0;
      if (backlog > 0) {
        const t = performance.now();
        await queue.add(
          name,
          Array.from({ length: backlog }, (_, i) => ({ group: 'acc_a', data: { i } })),
        );
        addMs = performance.now() - t;
      }
      let bDone = 0;
      const w = await queue.work<{ b?: boolean }>(
        name,
        { concurrency: 4, groupLimit: () => 8 },
        async (t) => {
          await sleep(TASK_MS);
          if (t.data.b) bDone++;
        },
      );
      await sleep(300); // A is running at full speed before B arrives
      const start = performance.now();
      await queue.add(
        name,
        Array.from({ length: 5 }, () => ({ group: 'acc_b', data: { b: true } })),
      );
      while (bDone < 5) await sleep(1);
      const ms = performance.now() - start;
      await w.stop(0);
      return { ms, addMs };
    };
    const alone = await run(0);
    const behind = await run(10_000);
    return { alone: alone.ms, behind: behind.ms, addMs: behind.addMs };
  } finally {
    await queue.close();
  }
}

/** Max running at once of a group capped at 2, two nodes of 4 workers each. */
async function capOurs(engine: Engine): Promise<number> {
  const first = await openEngine(engine);
  const second = await openEngine(engine, first.storage);
  try {
    const name = `q_${randomBytes(4).toString('hex')}`;
    await first.queue.createQueue(name, policy);
    await first.queue.add(name, spread(200, 1));
    let now = 0;
    let max = 0;
    let done = 0;
    const handler = async () => {
      max = Math.max(max, ++now);
      await sleep(10);
      now--;
      done++;
    };
    for (const q of [first.queue, second.queue])
      await q.work(name, { concurrency: 4, groupLimit: () => 2 }, handler);
    while (done < 200) await sleep(5);
    return max;
  } finally {
    await second.queue.close();
    await first.queue.close();
  }
}

/** The same with pg-boss's own groupConcurrency: 2 (two instances, localConcurrency 4 each). */
async function capDefaults(): Promise<number> {
  const schema = `cardshot_bench_${randomBytes(4).toString('hex')}`;
  schemas.push(schema);
  const bosses = [
    new PgBoss({ connectionString: PG_URL, schema }),
    new PgBoss({ connectionString: PG_URL, schema }),
  ];
  for (const b of bosses) b.on('error', () => {});
  await bosses[0]!.start();
  await bosses[1]!.start();
  try {
    await bosses[0]!.createQueue('cap');
    await bosses[0]!.insert(
      'cap',
      Array.from({ length: 100 }, (_, i) => ({ data: { i }, group: { id: 'acc_0' } })),
    );
    let now = 0;
    let max = 0;
    let done = 0;
    for (const b of bosses) {
      await b.work(
        'cap',
        { localConcurrency: 4, groupConcurrency: 2, pollingIntervalSeconds: 0.5 },
        async () => {
          max = Math.max(max, ++now);
          await sleep(10);
          now--;
          done++;
        },
      );
    }
    while (done < 100) await sleep(5);
    return max;
  } finally {
    for (const b of bosses) await b.stop({ graceful: false, close: true, timeout: 1000 });
  }
}

/** In a child (`--rss-of ENGINE`): RSS added by opening the engine, adding 10,000 and running 1,000. */
async function rssChild(engine: Engine): Promise<void> {
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  const { queue } = await openEngine(engine);
  const opened = process.memoryUsage().rss;
  const name = 'rss';
  await queue.createQueue(name, policy);
  await queue.add(name, spread(10_000, 4));
  let done = 0;
  await queue.work(name, { concurrency: 4, groupLimit: () => 4 }, async () => {
    done++;
  });
  while (done < 1000) await sleep(5);
  const after = process.memoryUsage().rss;
  await queue.close();
  await cleanup();
  process.stdout.write(`${JSON.stringify({ opened: opened - before, after: after - before })}\n`);
}

function rssOf(engine: Engine): { opened: number; after: number } {
  const r = spawnSync(process.execPath, ['--expose-gc', process.argv[1]!, '--rss-of', engine], {
    encoding: 'utf8',
    env: process.env,
  });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line);
  } catch {
    throw new Error(`rss child (${engine}) failed: ${r.stderr}`);
  }
}

async function cleanup(): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    for (const s of schemas.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  } finally {
    await client.end();
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

const mb = (b: number) => (b / 2 ** 20).toFixed(0);

async function main(): Promise<void> {
  if (args['rss-of']) return rssChild(args['rss-of'] as Engine);
  const rounds = Number(args.rounds);
  const tp: Record<'defaults' | Engine, number[]> = { defaults: [], tuned: [], sqlite: [] };
  try {
    say(
      `throughput: ${TASKS} tasks of ${TASK_MS} ms at concurrency 4 (${DEFAULT_TASKS} for pg-boss defaults)`,
    );
    for (let r = 0; r < rounds; r++) {
      // Interleaved rounds: each engine sees the same drift of the shared machine.
      tp.defaults.push(DEFAULT_TASKS / ((await throughputDefaults(DEFAULT_TASKS)) / 1000));
      tp.tuned.push(TASKS / ((await throughputOurs('tuned', TASKS)) / 1000));
      tp.sqlite.push(TASKS / ((await throughputOurs('sqlite', TASKS)) / 1000));
      say(
        `round ${r + 1}: ${tp.defaults.at(-1)!.toFixed(0)} / ${tp.tuned.at(-1)!.toFixed(0)} / ${tp.sqlite.at(-1)!.toFixed(0)} tasks/s`,
      );
      await cleanup();
    }
    say('fairness: 5 of B behind 10,000 of A');
    const fair = { tuned: await fairness('tuned'), sqlite: await fairness('sqlite') };
    await cleanup();
    say('group cap 2 across two nodes');
    const cap = {
      defaults: await capDefaults(),
      tuned: await capOurs('tuned'),
      sqlite: await capOurs('sqlite'),
    };
    await cleanup();
    say('RSS (a child per engine)');
    const rss = { tuned: rssOf('tuned'), sqlite: rssOf('sqlite') };

    const med = (xs: number[]) => summarize(xs).p50;
    const base = med(tp.defaults);
    const tables: Table[] = [
      [
        [`throughput, 5 ms tasks, concurrency 4 (median of ${rounds})`, 'tasks/s', 'vs pg-boss defaults'],
        [`pg-boss 12 defaults (work(), localConcurrency 4; ${DEFAULT_TASKS} tasks)`, base.toFixed(0), '1.0×'],
        [
          `Cardshot on pg-boss (${TASKS} tasks)`,
          med(tp.tuned).toFixed(0),
          `${(med(tp.tuned) / base).toFixed(1)}×`,
        ],
        [
          `Cardshot SQLite queue (${TASKS} tasks)`,
          med(tp.sqlite).toFixed(0),
          `${(med(tp.sqlite) / base).toFixed(1)}×`,
        ],
        ['ideal (4 × 1000 / 5 ms)', '800', `${(800 / base).toFixed(1)}×`],
      ],
      [
        [
          'fairness: 5 tasks of B, concurrency 4',
          'B alone ms',
          'B behind 10,000 of A ms',
          'ratio (issue: ≤ 3×)',
          'adding 10,000 ms',
        ],
        ...(['tuned', 'sqlite'] as const).map((e) => [
          e === 'tuned' ? 'Cardshot on pg-boss' : 'Cardshot SQLite queue',
          fair[e].alone.toFixed(0),
          fair[e].behind.toFixed(0),
          `${(fair[e].behind / fair[e].alone).toFixed(2)}×`,
          fair[e].addMs.toFixed(0),
        ]),
      ],
      [
        ['group cap 2, two nodes × 4 workers, 10 ms tasks', 'max running observed'],
        ['pg-boss 12 groupConcurrency: 2', String(cap.defaults)],
        ['Cardshot on pg-boss (advisory-locked fetch)', String(cap.tuned)],
        ['Cardshot SQLite queue', String(cap.sqlite)],
      ],
      [
        ['RSS added (own process)', 'open MB', 'open + add 10,000 + run 1,000 MB'],
        ['Cardshot on pg-boss', mb(rss.tuned.opened), mb(rss.tuned.after)],
        ['Cardshot SQLite queue', mb(rss.sqlite.opened), mb(rss.sqlite.after)],
      ],
    ];
    for (const t of tables) process.stdout.write(`\n${textTable(t)}\n`);
    if (!args['no-docs']) {
      const md = `## Job queue (\`bench/queue.ts\`)

Command: \`npm run bench:queue\`. Run: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machineFacts()}.
PostgreSQL on loopback, a fresh schema per engine; SQLite in a temp dir. Rounds interleaved.

${tables.map(markdownTable).join('\n\n')}
`;
      writeSection(path.join(root, 'docs/benchmarks.md'), 'queue', md);
      say('wrote docs/benchmarks.md');
    }
  } finally {
    await cleanup();
  }
}

await main();
