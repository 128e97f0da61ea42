/**
 * Webhook after a job's last item (issue 28 §5: "webhook delivered after the job's last item:
 * p50 ≤ 1 s"). The whole way, as a user sees it: a 5-card job with a webhook endpoint is
 * submitted over HTTP; the job's end is stored with its `completedAt` (with the job.completed
 * event in the same transaction, the outbox), the relay publishes it, the webhooks area queues
 * and signs it, and a receiver on 127.0.0.1 takes it. The figure is the receiver's clock at
 * arrival minus the stored `completedAt` that the event's body carries (one machine, one clock).
 * On the embedded default (SQLite store and queue) and, with DATABASE_URL, on PostgreSQL.
 *
 *   npm run bench:job-webhook [-- --jobs 20]
 *
 * Not a test: CI does not run it. All traffic stays on 127.0.0.1.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { createApp } from '../src/app.js';
import { createModules } from '../src/modules.js';
import { loadConfig } from '../src/settings.js';
import { summarize } from './lib/stats.js';

const { values: args } = parseArgs({ options: { jobs: { type: 'string', default: '20' } } });
const JOBS = Number(args.jobs);
const say = (m: string) => process.stdout.write(`${m}\n`);

async function run(label: string, database: Record<string, string>): Promise<number[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-bench-jobhook-'));
  const arrivals = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  const receiver = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => {
      raw += c;
    });
    req.on('end', () => {
      const at = Date.now();
      const body = JSON.parse(raw) as { type: string; data: { id?: string; completedAt?: string } };
      res.writeHead(204).end();
      if (body.type !== 'job.completed' || !body.data.id || !body.data.completedAt) return;
      arrivals.set(body.data.id, at - Date.parse(body.data.completedAt));
      waiters.get(body.data.id)?.();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hostPort = `127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const plansFile = path.join(dir, 'plans.json');
  await writeFile(
    plansFile,
    JSON.stringify({
      bench: {
        templates: '*',
        screenshots: { viewports: '*', concurrency: 8, queue: 64 },
        rateLimit: { requests: 1_000_000, windowSeconds: 60 },
        jobs: { maxItems: 1000, concurrency: 8, maxWaiting: 10_000, retentionDays: 1 },
      },
    }),
  );
  const config = loadConfig(
    {
      dataDir: path.join(dir, 'data'),
      logLevel: 'warn',
      nodeEnv: 'test',
      plansFile,
      allowPrivateHosts: [hostPort],
      ...database,
    },
    {},
  );
  const log = pino({ level: 'warn' });
  const modules = await createModules(config, log, { passwordCost: 10 });
  const app = createApp({ config, log, ...modules });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  try {
    const account = await modules.accounts.accounts.createAccount({
      name: 'hook',
      email: `hook-${Date.now()}@bench.test`,
      plan: 'bench',
    });
    const { key } = await modules.accounts.accounts.createKey({
      accountId: account.id,
      name: 'k',
      environment: 'test',
    });
    const call = async (url: string, body: unknown) => {
      const res = await fetch(`${base}${url}`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (res.status >= 300) throw new Error(`${url}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { id: string };
    };
    const endpoint = await call('/webhooks', { url: `http://${hostPort}/hook`, events: ['job.completed'] });
    let uniq = 0;
    for (let j = 0; j < JOBS; j++) {
      const items = Array.from({ length: 5 }, () => ({
        template: 'blog',
        title: `Webhook bench ${++uniq}`,
        subtitle: 'After the last item',
      }));
      const job = await call('/jobs', { items, webhook: endpoint.id });
      await new Promise<void>((resolve, reject) => {
        if (arrivals.has(job.id)) return resolve();
        const timer = setTimeout(() => reject(new Error(`job ${job.id}: no webhook within 30 s`)), 30_000);
        waiters.set(job.id, () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    const delays = [...arrivals.values()];
    const s = summarize(delays);
    say(
      `${label}: job.completed after the last item, ${delays.length} jobs: p50 ${s.p50.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms, max ${Math.max(...delays).toFixed(1)} ms`,
    );
    return delays;
  } finally {
    await app.close();
    await modules.close();
    await new Promise<void>((r) => receiver.close(() => r()));
    await rm(dir, { recursive: true, force: true });
  }
}

say(`load average ${os.loadavg()[0]!.toFixed(1)}`);
await run('SQLite store and queue', {});
const url = process.env.DATABASE_URL;
if (url)
  await run('PostgreSQL + pg-boss', { databaseUrl: url, databaseSchema: `bench_jobhook_${Date.now()}` });
say(`load average ${os.loadavg()[0]!.toFixed(1)}`);
process.exit(0);
