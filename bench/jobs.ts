/**
 * Jobs (issue 28 §3, §5), ratios from one run on this machine, in one process (the server
 * listens on 127.0.0.1; requests go through real HTTP):
 * - throughput: 1,000 cards through a job vs 1,000 synchronous requests at c=4;
 * - priority: synchronous card and screenshot p50 while a 10,000-item job runs vs idle;
 * - fairness: a 5-item job of account B alone vs behind account A's 10,000 queued items;
 * - memory: RSS added by submitting the 10,000-item job; RSS while zips stream (1,000 cards,
 *   and 60 photo screenshots whose zip is larger than any buffer).
 * Writes its section of docs/benchmarks.md with --write.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { createApp } from '../src/app.js';
import { createModules } from '../src/modules.js';
import { loadConfig } from '../src/settings.js';
import { machineFacts, markdownTable, type Table, textTable, writeSection } from './lib/report.js';
import { startSite } from './lib/site.js';
import { summarize } from './lib/stats.js';

const root = path.resolve(import.meta.dirname, '../..');
const { values: args } = parseArgs({
  options: {
    write: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
    only: { type: 'string', default: 'all' },
    runs: { type: 'string', default: '1' },
    workers: { type: 'string' },
  },
});
if (args.help) {
  process.stdout.write(`Usage: npm run bench:jobs -- [--write] [--only throughput] [--runs N] [--workers N]
  --write       write the jobs section of docs/benchmarks.md
  --only        throughput: only the 1,000-card throughput comparison (quick, for profiling);
                core: every measure but the zips
  --runs N      repeat the throughput comparison N times (alternating which goes first); medians
  --workers N   CARDSHOT_JOBS_WORKERS (default: the setting's default, 4)
`);
  process.exit(0);
}
const runs = Math.max(1, Number(args.runs));
const say = (m: string) => process.stdout.write(`${m}\n`);
const rssMiB = () => process.memoryUsage().rss / 1024 ** 2;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-bench-jobs-'));
const site = await startSite();
const plansFile = path.join(dir, 'plans.json');
await writeFile(
  plansFile,
  JSON.stringify({
    bench: {
      templates: '*',
      screenshots: { viewports: '*', concurrency: 8, queue: 64, options: '*' },
      rateLimit: { requests: 1_000_000, windowSeconds: 60 },
      jobs: { maxItems: 10_000, concurrency: 8, maxWaiting: 100_000, retentionDays: 1 },
    },
  }),
);
const config = loadConfig(
  {
    dataDir: path.join(dir, 'data'),
    logLevel: 'warn',
    nodeEnv: 'test',
    plansFile,
    allowPrivateHosts: [site.hostPort],
  },
  args.workers ? { CARDSHOT_JOBS_WORKERS: args.workers } : {},
);
const log = pino({ level: 'warn' });
const modules = await createModules(config, log, { passwordCost: 10 });
const app = createApp({ config, log, ...modules });
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
const keyOf = async (name: string) => {
  const a = await modules.accounts.accounts.createAccount({
    name,
    email: `${name}-${Date.now()}@bench.test`,
    plan: 'bench',
  });
  return (await modules.accounts.accounts.createKey({ accountId: a.id, name: 'k', environment: 'test' })).key;
};
const [keyA, keyB, keyC] = [await keyOf('a'), await keyOf('b'), await keyOf('c')];
let uniq = 0;
const card = (tag: string) => ({ template: 'blog', title: `${tag} ${++uniq}`, subtitle: 'A benchmark card' });

const call = (key: string, url: string, init: RequestInit = {}) =>
  fetch(`${base}${url}`, {
    ...init,
    headers: { 'x-api-key': key, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });
const submit = async (key: string, items: unknown[]) => {
  const res = await call(key, '/jobs', { method: 'POST', body: JSON.stringify({ items }) });
  if (res.status !== 202) throw new Error(`submit: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
};
const status = async (key: string, id: string) =>
  (await (await call(key, `/jobs/${id}`)).json()) as {
    status: string;
    counts: Record<string, number>;
    completedAt: string | null;
  };
/** Polls the job every `everyMs` until it has ended. */
const finish = async (key: string, id: string, everyMs = 10) => {
  for (;;) {
    const s = await status(key, id);
    if (!['queued', 'running'].includes(s.status)) return s;
    await sleep(everyMs);
  }
};
/** `n` synchronous cards at concurrency `c`; their latencies (ms). */
const syncCards = async (n: number, c: number, tag: string) => {
  const times: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (next < n) {
        next++;
        const t0 = performance.now();
        const res = await call(keyC, '/render/template', { method: 'POST', body: JSON.stringify(card(tag)) });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`sync card ${res.status}`);
        times.push(performance.now() - t0);
      }
    }),
  );
  return times;
};
const shot = async () => {
  const t0 = performance.now();
  const res = await fetch(
    `${base}/render/url?url=${encodeURIComponent(new URL(`/?n=${++uniq}`, site.url).href)}`,
    {
      headers: { 'x-api-key': keyC },
    },
  );
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`shot ${res.status}`);
  return performance.now() - t0;
};
const p50 = (xs: number[]) => summarize(xs).p50;
/** The 1,000 cards' zip (job `thru`) and 60 photo screenshots' zip, streamed: sizes and RSS added. */
let thruForZip = '';
async function zips() {
  const thru = thruForZip;
  // Zips streamed to nowhere while RSS is sampled: the 1,000 cards, and 60 photo-heavy
  // screenshots (large PNGs) whose zip is larger than any buffer could hide.
  say('zip…');
  const photos = await submit(
    keyA,
    Array.from({ length: 60 }, () => ({ url: new URL(`/photos?n=${++uniq}`, site.url).href })),
  );
  const photosDone = await finish(keyA, photos);
  const zipRss = async (id: string) => {
    global.gc?.();
    const z0 = rssMiB();
    let zPeak = z0;
    const zSampler = setInterval(() => {
      zPeak = Math.max(zPeak, rssMiB());
    }, 5);
    // curl reads it in another process, so the RSS sampled here is the server's alone.
    const size = await new Promise<number>((resolve, reject) => {
      execFile(
        'curl',
        [
          '-sS',
          '-o',
          '/dev/null',
          '-w',
          '%{size_download}',
          '-H',
          `x-api-key: ${keyA}`,
          `${base}/jobs/${id}/results.zip`,
        ],
        (err, out) => (err ? reject(err) : resolve(Number(out))),
      );
    });
    clearInterval(zSampler);
    return `${(size / 1024 ** 2).toFixed(1)} MiB, +${(zPeak - z0).toFixed(0)} MiB`;
  };
  return { zipCards: await zipRss(thru), zipPhotos: await zipRss(photos), photosDone };
}

/** Ends the run early (--only). */
class Done extends Error {}

try {
  // Warm-up: fonts, the browser, the job path.
  await syncCards(40, 4, 'warm');
  for (let i = 0; i < 3; i++) await shot();
  await finish(
    keyA,
    await submit(
      keyA,
      Array.from({ length: 40 }, () => card('warm job')),
    ),
  );

  // 1. Throughput: each run times both, alternating which goes first (a shared machine's load
  // drifts); the medians of the runs are reported.
  say('throughput…');
  const syncRuns: number[] = [];
  const jobRuns: number[] = [];
  let thru = '';
  let thruDone = { counts: { succeeded: 0 } as Record<string, number> };
  const timeSync = async () => {
    const s0 = performance.now();
    await syncCards(1000, 4, 'sync');
    syncRuns.push((performance.now() - s0) / 1000);
  };
  // The job's time is from its submission to the completedAt the server stored (one process,
  // one clock). Its status is polled every 200 ms, as a client would: polling every 10 ms made
  // the server count the job's items 100 times a second, a load no synchronous request has.
  const timeJob = async () => {
    const j0 = Date.now();
    thru = await submit(
      keyA,
      Array.from({ length: 1000 }, () => card('job')),
    );
    const done = await finish(keyA, thru, 200);
    thruDone = done;
    thruForZip = thru;
    jobRuns.push((Date.parse(done.completedAt ?? '') - j0) / 1000);
  };
  for (let r = 0; r < runs; r++) {
    if (r % 2 === 0) {
      await timeSync();
      await timeJob();
    } else {
      await timeJob();
      await timeSync();
    }
    say(
      `  run ${r + 1}: synchronous ${syncRuns.at(-1)!.toFixed(1)} s, job ${jobRuns.at(-1)!.toFixed(1)} s, ${(syncRuns.at(-1)! / jobRuns.at(-1)!).toFixed(2)}× (load ${os.loadavg()[0]!.toFixed(1)})`,
    );
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const syncS = median(syncRuns);
  const jobS = median(jobRuns);
  const ratios = syncRuns.map((x, i) => x / jobRuns[i]!);
  if (args.only === 'throughput') {
    say(
      `throughput job/synchronous: median ${median(ratios).toFixed(2)}× of ${runs} (${ratios.map((r) => r.toFixed(2)).join(', ')})`,
    );
    process.exitCode = 0;
    throw new Done();
  }

  // 2. Idle latencies, and fairness alone.
  say('idle…');
  const idleCards: number[] = [];
  for (let i = 0; i < 60; i++) idleCards.push(...(await syncCards(1, 1, 'idle')));
  const idleShots: number[] = [];
  for (let i = 0; i < 10; i++) idleShots.push(await shot());
  const b0 = performance.now();
  await finish(
    keyB,
    await submit(
      keyB,
      Array.from({ length: 5 }, () => card('b alone')),
    ),
  );
  const bAlone = performance.now() - b0;

  // 3. A 10,000-item job: RSS of its submission, then everything measured while it runs.
  say('10,000-item job…');
  global.gc?.();
  const rss0 = rssMiB();
  let rssPeak = rss0;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rssMiB());
  }, 5);
  const big0 = performance.now();
  const big = await submit(
    keyA,
    Array.from({ length: 10_000 }, () => card('big')),
  );
  const submitMs = performance.now() - big0;
  clearInterval(sampler);
  const b1 = performance.now();
  await finish(
    keyB,
    await submit(
      keyB,
      Array.from({ length: 5 }, () => card('b behind')),
    ),
  );
  const bBehind = performance.now() - b1;
  const busyCards: number[] = [];
  for (let i = 0; i < 60; i++) busyCards.push(...(await syncCards(1, 1, 'busy')));
  const busyShots: number[] = [];
  for (let i = 0; i < 10; i++) busyShots.push(await shot());
  const bigState = await status(keyA, big);
  await call(keyA, `/jobs/${big}`, { method: 'DELETE' });

  // 4. Zips streamed to nowhere while RSS is sampled (skipped by --only core).
  let zipCards = 'not measured (--only core)';
  let zipPhotos = zipCards;
  let photosDone = { counts: { succeeded: 0 } as Record<string, number> };
  if (args.only !== 'core') {
    ({ zipCards, zipPhotos, photosDone } = await zips());
  }

  const rows: Table = [
    ['measure', 'value', 'issue asks'],
    ['1,000 cards: synchronous at c=4', `${syncS.toFixed(1)} s (${(1000 / syncS).toFixed(0)}/s)`, ''],
    [
      '1,000 cards: one job (4 workers)',
      `${jobS.toFixed(1)} s (${(1000 / jobS).toFixed(0)}/s), ${thruDone.counts.succeeded} succeeded`,
      '',
    ],
    [
      'job throughput / synchronous',
      `${median(ratios).toFixed(2)}× (median of ${runs} paired: ${ratios.map((r) => r.toFixed(2)).join(', ')})`,
      '≥ 0.9×',
    ],
    [
      'card p50 idle → during a 10,000-item job',
      `${p50(idleCards).toFixed(1)} → ${p50(busyCards).toFixed(1)} ms (${(p50(busyCards) / p50(idleCards)).toFixed(2)}×)`,
      '≤ 1.5×',
    ],
    [
      'screenshot p50 idle → during',
      `${p50(idleShots).toFixed(0)} → ${p50(busyShots).toFixed(0)} ms (${(p50(busyShots) / p50(idleShots)).toFixed(2)}×)`,
      '≤ 2×',
    ],
    [
      "5-item job of B: alone → behind A's 10,000",
      `${bAlone.toFixed(0)} → ${bBehind.toFixed(0)} ms (${(bBehind / bAlone).toFixed(2)}×)`,
      '≤ 3×',
    ],
    [
      'submitting 10,000 items: time, RSS added (peak)',
      `${submitMs.toFixed(0)} ms, +${(rssPeak - rss0).toFixed(0)} MiB`,
      '≤ 100 MB',
    ],
    ['zip of the 1,000 cards streamed: size, RSS added (peak)', zipCards, 'not its size'],
    [
      `zip of ${photosDone.counts.succeeded} photo screenshots: size, RSS added (peak)`,
      zipPhotos,
      'not its size',
    ],
    [
      '10,000-item job when canceled',
      `${bigState.counts.succeeded} succeeded, ${bigState.counts.queued} queued`,
      '',
    ],
  ];
  say(textTable(rows));
  if (args.write) {
    const md = `## Jobs (\`bench/jobs.ts\`)

Command: \`npm run bench:jobs\`. Run: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machineFacts()}.
One process: the server on 127.0.0.1 (the zip is read by curl, so its RSS is the server's) (SQLite store and queue, CARDSHOT_JOBS_WORKERS=4, plan
jobs.concurrency 8), requests over real HTTP, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')} at the end.
Throughput: ${runs} paired runs alternating which goes first; the job's time runs from its
submission to the \`completedAt\` it stored, its status polled every 200 ms. Latencies are sequential requests (c=1), 60 cards
and 10 screenshots of a loopback page each; the 10,000-item job is canceled after the measures.

${markdownTable(rows)}`;
    writeSection(path.join(root, 'docs/benchmarks.md'), 'jobs', md);
    say('written to docs/benchmarks.md');
  }
} catch (err) {
  if (!(err instanceof Done)) throw err;
} finally {
  await app.close();
  await modules.close();
  await site.close();
  await rm(dir, { recursive: true, force: true });
}
