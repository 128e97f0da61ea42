/**
 * Delivery to storage (issue 31 §3): 1,000 cards through a job whose items are also uploaded to
 * an S3-compatible bucket (`"store": "s3"`) vs the same job writing its results to disk only.
 * The bucket is s3rver in its own process on 127.0.0.1 (objects on the same disk); the server's
 * modules run in this process with 4 job workers. Rounds alternate (disk, bucket, disk, bucket)
 * with fresh titles each, so no card comes from the cache. Not a test.
 *
 *   npm run bench:delivery [-- --write]
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { createModules } from '../src/modules.js';
import { loadConfig } from '../src/settings.js';
import { machineFacts, markdownTable, type Table, textTable, writeSection } from './lib/report.js';

const root = path.resolve(import.meta.dirname, '../..');
const { values: args } = parseArgs({
  options: {
    write: { type: 'boolean', default: false },
    items: { type: 'string', default: '1000' },
    // Where Cardshot's data dir (the cards written to disk in every round) goes.
    dir: { type: 'string', default: os.tmpdir() },
    // Where the bucket keeps its objects. By default memory (tmpfs), as a real bucket's disks
    // are not this machine's: on this disk, after a mass deletion (this bench's own clean-up,
    // another run's), creating a file costs ~1 ms of kernel time instead of ~15 µs for a while,
    // and s3rver makes three files per object (its CPU per round went from 1.0 to 3-4 s).
    'bucket-dir': { type: 'string', default: existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir() },
  },
});
const ITEMS = Number(args.items);
const ROUNDS = 3;
const say = (m: string) => process.stdout.write(`${m}\n`);
const pct = (x: number) => `${Math.round(x * 100)}%`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const dir = await mkdtemp(path.join(args.dir, 'cardshot-bench-delivery-'));
const bucketDir = await mkdtemp(path.join(args['bucket-dir'], 'cardshot-bench-bucket-'));
const child = spawn(
  process.execPath,
  [path.join(import.meta.dirname, 'lib/s3rver-child.js'), path.join(bucketDir, 's3'), 'bench'],
  { stdio: ['pipe', 'pipe', 'inherit'] },
);
const port = Number(
  await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve)),
);
const plansFile = path.join(dir, 'plans.json');
await writeFile(
  plansFile,
  JSON.stringify({
    bench: {
      templates: '*',
      screenshots: false,
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
    jobsWorkers: 4,
    storageAllowPrivateHosts: [`127.0.0.1:${port}`],
  },
  {},
);
const modules = await createModules(config, pino({ level: 'warn' }), { passwordCost: 10 });
try {
  const account = await modules.accounts.accounts.createAccount({
    name: 'bench',
    email: 'bench@bench.test',
    plan: 'bench',
  });
  const plan = modules.accounts.plans.get('bench')!;
  const target = await modules.delivery.create(account.id, {
    endpoint: `http://127.0.0.1:${port}`,
    bucket: 'bench',
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
  });

  /**
   * What creating a file costs on this disk now, in µs (200 empty files made and removed): s3rver
   * makes three files per object and Cardshot two per card, and on the shared machine this was
   * seen to swing between ~20 µs and ~1 ms with no CPU load in sight, moving every figure here.
   */
  const createCost = () => {
    const probe = path.join(dir, 'probe');
    mkdirSync(probe, { recursive: true });
    const t0 = performance.now();
    for (let i = 0; i < 200; i++) closeSync(openSync(path.join(probe, `f${i}`), 'w'));
    const us = ((performance.now() - t0) * 1000) / 200;
    rmSync(probe, { recursive: true, force: true });
    return us;
  };
  const creates: number[] = [];
  /** CPU seconds (user + system) of the s3rver process so far: the bucket's own cost on these cores. */
  const bucketCpu = () => {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  /** The share of a job's time this process's event loop was busy (its one thread does the bookkeeping). */
  const loopBusy: { disk: number[]; bucket: number[] } = { disk: [], bucket: [] };
  const runJob = async (label: string, store: boolean): Promise<number> => {
    const elu0 = performance.eventLoopUtilization();
    const items = Array.from({ length: ITEMS }, (_, i) => ({
      template: 'blog',
      title: `${label} card ${i}`,
      subtitle: 'delivery bench',
    }));
    const started = performance.now();
    const { job } = await modules.jobs.service.submit(
      { accountId: account.id, plan },
      { items, source: 'body', ...(store ? { store: { storage: target.id } } : {}) },
    );
    for (;;) {
      const { job: now, counts } = await modules.jobs.service.get(account.id, job.id);
      if (now.status !== 'queued' && now.status !== 'running') {
        if (counts.succeeded !== ITEMS) throw new Error(`${label}: ${JSON.stringify(counts)}`);
        loopBusy[store ? 'bucket' : 'disk'].push(performance.eventLoopUtilization(elu0).utilization);
        return (performance.now() - started) / 1000;
      }
      await sleep(50);
    }
  };

  // A warm-up job (fonts, queue, first connections), then the rounds.
  await runJob('warm', true);
  const disk: number[] = [];
  const bucket: number[] = [];
  const s3Cpu: number[] = [];
  const ownDisk: number[] = [];
  const ownBucket: number[] = [];
  /** CPU seconds of this process (every thread: the event loop, the renderers, libuv's pool). */
  const ownCpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  };
  for (let r = 0; r < ROUNDS; r++) {
    creates.push(createCost());
    say(`round ${r + 1}: creating a file takes ${creates.at(-1)!.toFixed(0)} µs`);
    let own0 = ownCpu();
    disk.push(await runJob(`disk${r}`, false));
    ownDisk.push(ownCpu() - own0);
    say(
      `round ${r + 1}: disk ${disk.at(-1)!.toFixed(1)} s (Cardshot CPU ${ownDisk.at(-1)!.toFixed(1)} s, event loop ${pct(loopBusy.disk.at(-1)!)} busy)`,
    );
    const cpu0 = bucketCpu();
    own0 = ownCpu();
    bucket.push(await runJob(`s3${r}`, true));
    ownBucket.push(ownCpu() - own0);
    s3Cpu.push(bucketCpu() - cpu0);
    say(
      `round ${r + 1}: bucket ${bucket.at(-1)!.toFixed(1)} s (Cardshot CPU ${ownBucket.at(-1)!.toFixed(1)} s, event loop ${pct(loopBusy.bucket.at(-1)!)} busy, s3rver ${s3Cpu.at(-1)!.toFixed(1)} s)`,
    );
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
  const rate = (s: number) => `${(ITEMS / s).toFixed(0)}/s`;
  const ratio = med(disk) / med(bucket);
  const rows: Table = [
    ['measure', 'value', 'issue asks'],
    [
      `${ITEMS} cards, results on disk (median of ${ROUNDS})`,
      `${med(disk).toFixed(1)} s (${rate(med(disk))}); rounds ${disk.map((s) => s.toFixed(1)).join(', ')} s`,
      '',
    ],
    [
      `${ITEMS} cards, on disk and uploaded (median of ${ROUNDS})`,
      `${med(bucket).toFixed(1)} s (${rate(med(bucket))}); rounds ${bucket.map((s) => s.toFixed(1)).join(', ')} s`,
      '',
    ],
    ['throughput with delivery / disk only', `${ratio.toFixed(2)}×`, '≥ 0.8×'],
    [
      'CPU Cardshot spent per round (all its threads): disk; bucket',
      `${ownDisk.map((s) => s.toFixed(1)).join(', ')} s; ${ownBucket.map((s) => s.toFixed(1)).join(', ')} s`,
      '',
    ],
    [
      "Cardshot's event loop busy per round: disk; bucket",
      `${loopBusy.disk.map(pct).join(', ')}; ${loopBusy.bucket.slice(1).map(pct).join(', ')}`,
      '',
    ],
    [
      "creating one file in Cardshot's data dir before each round",
      creates.map((us) => `${us.toFixed(0)} µs`).join(', '),
      '',
    ],
    [
      'CPU the S3 server (s3rver) spent per bucket round, on the same 2 cores',
      s3Cpu.map((s) => `${s.toFixed(1)} s`).join(', '),
      '',
    ],
  ];
  say(textTable(rows));
  if (args.write) {
    const md = `## Delivery to storage (\`bench/delivery.ts\`)

Command: \`npm run bench:delivery -- --write${args.dir === os.tmpdir() ? '' : ` --dir ${args.dir}`}${args['bucket-dir'] === '/dev/shm' ? '' : ` --bucket-dir ${args['bucket-dir']}`}\`. Run: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machineFacts()}.
One job of ${ITEMS} distinct cards (blog template, 1200×630 PNG) per round, 4 job workers, the
SQLite store and queue; rounds alternate disk-only and \`"store": "s3"\` (each item written to
disk, then uploaded with one SigV4-signed PUT to s3rver running in its own process on
127.0.0.1, through the URL guard's lookup; the item lends its worker slot while it uploads).
Times are from submission to the job's end. The S3 server shares the machine's cores with
Cardshot here (its CPU is in the last row); a real bucket's work is done elsewhere. Cardshot's
cards go to \`${args.dir}\` in both kinds of round; the bucket keeps its objects in
\`${args['bucket-dir']}\`${args['bucket-dir'] === '/dev/shm' ? " (memory: its disks are not this machine's)" : ''}. Figures from
a shared machine under load (other runs beside it) drift between rounds, and with the cost of
creating a file on this disk (its row: s3rver makes three files per object).

${markdownTable(rows)}`;
    writeSection(path.join(root, 'docs/benchmarks.md'), 'delivery', md);
    say('written to docs/benchmarks.md');
  }
} finally {
  await modules.close();
  child.kill('SIGTERM');
  await rm(dir, { recursive: true, force: true });
  await rm(bucketDir, { recursive: true, force: true });
}
