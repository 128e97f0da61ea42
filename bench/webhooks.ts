/**
 * Webhook delivery latency: from `publish` (what the jobs area calls when a job ends) to the
 * signed request arriving at a receiver on 127.0.0.1, on the embedded default (SQLite store and
 * queue) and, with DATABASE_URL, on PostgreSQL with pg-boss. Events go one at a time (the
 * figure the issue asks for: p50 ≤ 1 s), then 200 at once from 20 accounts. Not a test: all
 * traffic stays on loopback.
 *
 *   npm run bench:webhooks            (DATABASE_URL=postgres://… adds the pg-boss run)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { createModules } from '../src/modules.js';
import { createUrlGuard } from '../src/net/url-guard.js';
import { loadConfig } from '../src/settings.js';
import { summarize } from './lib/stats.js';

const { Client } = pg;

const say = (m: string) => process.stdout.write(`${m}\n`);

async function run(label: string, database: { databaseUrl: string; databaseSchema: string }): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-bench-wh-'));
  const arrived = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => {
      raw += c;
    });
    req.on('end', () => {
      const tag = (JSON.parse(raw) as { data: { tag: string } }).data.tag;
      arrived.set(tag, performance.now());
      res.writeHead(204).end();
      waiters.get(tag)?.();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const hostPort = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConfig({ dataDir, logLevel: 'warn', nodeEnv: 'test', ...database }, {});
  const modules = await createModules(config, pino({ level: 'warn' }), {
    webhookGuard: createUrlGuard({ allowPrivateHosts: [hostPort] }),
    passwordCost: 10,
  });
  try {
    const accounts: string[] = [];
    for (let i = 0; i < 20; i++) {
      const a = await modules.accounts.accounts.createAccount({
        name: `a${i}`,
        email: `a${i}-${Date.now()}@bench.test`,
        plan: 'pro',
      });
      await modules.webhooks.create(a.id, { url: `http://${hostPort}/hook` });
      accounts.push(a.id);
    }
    const one = async (account: string, tag: string) => {
      const got = new Promise<void>((r) => waiters.set(tag, r));
      const start = performance.now();
      await modules.webhooks.publish(account, { type: 'job.completed', data: { tag } });
      await got;
      return (arrived.get(tag) ?? Number.NaN) - start;
    };
    for (let i = 0; i < 10; i++) await one(accounts[0]!, `warm-${i}`);
    const sequential: number[] = [];
    for (let i = 0; i < 100; i++) sequential.push(await one(accounts[i % 20]!, `seq-${i}`));
    const started = performance.now();
    const burst = await Promise.all(
      Array.from({ length: 200 }, (_, i) => one(accounts[i % 20]!, `burst-${i}`)),
    );
    const wall = performance.now() - started;
    const s = summarize(sequential);
    const b = summarize(burst);
    say(
      `${label}: one at a time p50 ${s.p50.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms, max ${s.max.toFixed(1)} ms (n=${s.n}); ` +
        `200 at once from 20 accounts: p50 ${b.p50.toFixed(0)} ms, p95 ${b.p95.toFixed(0)} ms, all in ${wall.toFixed(0)} ms`,
    );
  } finally {
    await modules.close();
    await new Promise<void>((r) => server.close(() => r()));
    await rm(dataDir, { recursive: true, force: true });
  }
}

await run('SQLite store + SQLite queue', { databaseUrl: '', databaseSchema: 'public' });
const pgUrl = process.env.DATABASE_URL;
if (pgUrl) {
  const schema = `bench_wh_${process.pid}`;
  try {
    await run('PostgreSQL + pg-boss', { databaseUrl: pgUrl, databaseSchema: schema });
  } finally {
    const client = new Client({ connectionString: pgUrl });
    await client.connect();
    await client.query(
      `DROP SCHEMA IF EXISTS "${schema}" CASCADE; DROP SCHEMA IF EXISTS "${schema}_pgboss" CASCADE`,
    );
    await client.end();
  }
}
