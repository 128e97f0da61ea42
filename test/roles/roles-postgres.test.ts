// @module-tag process
// @module-tag chromium
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAccounts } from '../../src/accounts/open.js';
import { listProcesses } from '../../src/render/screenshot/engine/browser/processes.js';
import { TEMPLATE_NAMES } from '../../src/render/template/registry.js';
import { NO_WORKER } from '../../src/roles/remote-shots.js';
import { SPILL_BYTES } from '../../src/roles/shot-spill.js';
import { WORKER_NOT_FOUND } from '../../src/roles/worker-app.js';
import { loadConfig } from '../../src/settings.js';
import {
  AGENT,
  BASIC,
  type CredentialSite,
  SESSION,
  startCredentialSite,
  TOKEN,
} from '../helpers/credential-site.js';
import { cleanEnv, type NodeProcess, runNode, startNodeProcess } from '../helpers/node-process.js';
import { type PageServer, startPageServer } from '../helpers/pages.js';
import { pixelAt, pngSize } from '../helpers/png.js';
import {
  deleteRedisPrefixes,
  dropSchema,
  postgresTestUrl,
  redisTestUrl,
  uniqueRedisPrefix,
  uniqueSchema,
} from '../helpers/services.js';

// Issue 31 §1: an api node and worker nodes (the built server, `node dist/src/main.js`) on one
// real PostgreSQL and Redis. The api node holds no browser: its screenshots and its jobs' items
// run on the workers; workers die (SIGKILL) and stop (SIGTERM) mid-work and nothing is lost.
const root = path.resolve(import.meta.dirname, '../..');
const pgUrl = await postgresTestUrl();
const redisUrl = await redisTestUrl();
const schema = uniqueSchema();
const METRICS_TOKEN = 'roles-test-metrics-token-0123456789';
const GRACE_MS = 10_000;
let dir = '';
let key = '';
let tinyKey = '';
let env: Record<string, string> = {};
let pages: PageServer;
let site: CredentialSite;
let api: NodeProcess | undefined;
const workers: NodeProcess[] = [];

beforeAll(async () => {
  if (!pgUrl || !redisUrl) return;
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-roles-'));
  pages = await startPageServer();
  site = await startCredentialSite();
  const plansFile = path.join(dir, 'plans.json');
  await writeFile(
    plansFile,
    JSON.stringify({
      team: {
        templates: '*',
        screenshots: { viewports: '*', concurrency: 4, queue: 8, options: '*', maxPixels: 40_000_000 },
        rateLimit: { requests: 10_000, windowSeconds: 60 },
        jobs: { concurrency: 4 },
      },
      tiny: {
        templates: '*',
        screenshots: { viewports: '*', concurrency: 1, queue: 1 },
        rateLimit: { requests: 10_000, windowSeconds: 60 },
      },
    }),
  );
  env = {
    DATABASE_URL: pgUrl,
    CARDSHOT_DATABASE_SCHEMA: schema,
    REDIS_URL: redisUrl,
    CARDSHOT_REDIS_PREFIX: uniqueRedisPrefix(),
    CARDSHOT_SECRET: 'roles-test-secret-0123456789abcdefghij',
    CARDSHOT_PLANS_FILE: plansFile,
    CARDSHOT_METRICS_TOKEN: METRICS_TOKEN,
    CARDSHOT_ALLOW_PRIVATE_HOSTS: [pages.hostPort, site.hostPort, site.other.hostPort].join(','),
    // Every node reads and writes the same results (a shared volume in production).
    CARDSHOT_JOBS_RESULTS_DIR: path.join(dir, 'results'),
    CARDSHOT_JOBS_WORKERS: '2',
    CARDSHOT_SCREENSHOT_CONCURRENCY: '2',
    CARDSHOT_SCREENSHOT_TIMEOUT_MS: '20000',
    CARDSHOT_SHUTDOWN_GRACE_MS: String(GRACE_MS),
    CARDSHOT_JOBS_LEASE_SECONDS: '2',
    CARDSHOT_LOG_LEVEL: 'info',
  };
  const admin = await openAccounts(
    loadConfig({ logLevel: 'silent', dataDir: dir, databaseUrl: pgUrl, databaseSchema: schema }, env),
    pino({ level: 'silent' }),
    { templates: TEMPLATE_NAMES },
  );
  try {
    const account = await admin.accounts.createAccount({
      name: 'Team',
      email: 'team@example.com',
      plan: 'team',
    });
    key = (await admin.accounts.createKey({ accountId: account.id, name: 'k', environment: 'test' })).key;
    const tiny = await admin.accounts.createAccount({
      name: 'Tiny',
      email: 'tiny@example.com',
      plan: 'tiny',
    });
    tinyKey = (await admin.accounts.createKey({ accountId: tiny.id, name: 'k', environment: 'test' })).key;
  } finally {
    await admin.close();
  }
}, 60_000);

afterAll(async () => {
  await Promise.all([api?.stop(), ...workers.map((w) => w.stop())]);
  await pages?.close();
  await site?.close();
  if (pgUrl) {
    await dropSchema(pgUrl, schema);
    await dropSchema(pgUrl, `${schema}_pgboss`);
  }
  if (redisUrl) await deleteRedisPrefixes(redisUrl);
  if (dir) await rm(dir, { recursive: true, force: true });
}, 60_000);

const call = (url: string, init: RequestInit = {}) =>
  fetch(`${api!.url}${url}`, { ...init, headers: { 'x-api-key': key, ...(init.headers ?? {}) } });
const shotUrl = (page: string, extra = '') =>
  `/render/url?url=${encodeURIComponent(`${pages.url}${page}`)}${extra}`;
/** SIGKILL (nothing of its own shutdown runs); a killed node needs no stop() after. */
async function killWorker(w: NodeProcess) {
  await w.kill();
  workers.splice(workers.indexOf(w), 1);
}

/** Every process under `pid` (its children, theirs, …). */
function tree(pid: number) {
  const all = listProcesses();
  const out: typeof all = [];
  const walk = (p: number) => {
    for (const child of all.filter((c) => c.ppid === p)) {
      out.push(child);
      walk(child.pid);
    }
  };
  walk(pid);
  return out;
}
const chromiumUnder = (pid: number) => tree(pid).filter((p) => p.comm.startsWith('chrom'));

async function startWorker(name: string): Promise<NodeProcess> {
  const w = await startNodeProcess(root, name, { ...env, CARDSHOT_ROLE: 'worker' });
  workers.push(w);
  await w.waitFor(/Cardshot is serving/);
  return w;
}

type JobView = { status: string; counts: Record<string, number> };
const jobOf = async (id: string) => (await (await call(`/jobs/${id}`)).json()) as JobView;
async function waitForJob(id: string, ms: number, until = (j: JobView) => j.status === 'completed') {
  let job: JobView;
  for (const end = Date.now() + ms; ; ) {
    job = await jobOf(id);
    if (until(job)) return job;
    if (Date.now() > end) throw new Error(`job ${id}: ${JSON.stringify(job)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
async function waitUntil(ms: number, ok: () => Promise<boolean>, what: string) {
  for (const end = Date.now() + ms; !(await ok()); ) {
    if (Date.now() > end) throw new Error(`after ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
async function submit(items: unknown[]): Promise<string> {
  const res = await call('/jobs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ items }),
  });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
}
/** Every item of the job succeeded, once: one result each, one file each in the shared results. */
async function expectEachOnce(id: string, n: number) {
  const seen = new Set<number>();
  for (let cursor: string | null = ''; cursor !== null; ) {
    const page = (await (
      await call(`/jobs/${id}/items?limit=100${cursor ? `&cursor=${cursor}` : ''}`)
    ).json()) as {
      items: Array<{ index: number; status: string; result: unknown }>;
      nextCursor: string | null;
    };
    for (const item of page.items) {
      expect(item.status).toBe('succeeded');
      seen.add(item.index);
    }
    cursor = page.nextCursor;
  }
  expect(seen.size).toBe(n);
  // The results directory holds one folder per account, beside the shared volume's id file (and
  // .remote-shots, where large screenshot answers are handed over).
  const accountDirs = (await readdir(path.join(dir, 'results'), { withFileTypes: true }))
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name);
  expect(accountDirs).toHaveLength(1);
  const files = (await readdir(path.join(dir, 'results', accountDirs[0]!, id))).filter((f) =>
    /\.(png|pdf)$/.test(f),
  );
  expect(files).toHaveLength(n);
}
const metricsText = async (base: string) =>
  (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
const gauge = (text: string, series: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('CARDSHOT_ROLE without PostgreSQL', () => {
  it('refuses to start an api node on the SQLite store, in one line', async () => {
    const data = await mkdtemp(path.join(os.tmpdir(), 'cardshot-roles-sqlite-'));
    try {
      const run = await runNode([path.join(root, 'dist/src/main.js')], {
        cwd: data,
        env: cleanEnv({ CARDSHOT_ROLE: 'api', CARDSHOT_DATA_DIR: data, PORT: '0' }),
      });
      expect(run.code).toBe(78);
      expect(run.stderr).toBe(
        'cardshot: configuration error: CARDSHOT_ROLE=api needs DATABASE_URL (PostgreSQL): api and worker nodes share its queue; the embedded SQLite store serves one node only (use CARDSHOT_ROLE=all)\n',
      );
    } finally {
      await rm(data, { recursive: true, force: true });
    }
  }, 30_000);
});

describe.skipIf(!pgUrl || !redisUrl)('an api node and worker nodes on PostgreSQL', () => {
  let backlogJob = '';

  it('without a worker: a screenshot answers 503 at once, and /metrics shows the waiting items', async () => {
    api = await startNodeProcess(root, 'roles-api', { ...env, CARDSHOT_ROLE: 'api' });
    await api.waitFor(/Cardshot is serving/);
    const started = Date.now();
    const res = await call(shotUrl('/split'));
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: NO_WORKER });
    expect(res.headers.get('retry-after')).toBe('5');
    expect(Date.now() - started).toBeLessThan(2000);

    // A job submitted to the api node waits for a worker: the backlog says so, by plan.
    const items = [
      ...Array.from({ length: 4 }, (_, i) => ({ template: 'blog', title: `Card ${i}` })),
      { url: `${pages.url}/split` },
    ];
    backlogJob = await submit(items);
    await new Promise((r) => setTimeout(r, 1200));
    const text = await metricsText(api.url);
    expect(gauge(text, 'cardshot_backlog_waiting{queue="items"}')).toBe(5);
    expect(gauge(text, 'cardshot_backlog_waiting_by_plan{queue="items",plan="team"}')).toBe(5);
    expect(gauge(text, 'cardshot_backlog_oldest_waiting_seconds{queue="items"}')).toBeGreaterThanOrEqual(1);
    expect(gauge(text, 'cardshot_backlog_waiting{queue="screenshots"}')).toBe(0);
    expect((await jobOf(backlogJob)).status).toBe('queued');
  }, 60_000);

  it('a worker runs the job submitted to the api node; the api node has no Chromium', async () => {
    const worker = await startWorker('roles-w1');
    const job = await waitForJob(backlogJob, 30_000);
    expect(job.counts).toEqual({ queued: 0, running: 0, succeeded: 5, failed: 0, canceled: 0 });
    await expectEachOnce(backlogJob, 5);
    // The same card drawn in-process on the api node: the same bytes and ETag.
    const sync = await call('/render/template?template=blog&title=Card%200');
    const item = await call(`/jobs/${backlogJob}/items/0`);
    expect(item.headers.get('etag')).toBe(sync.headers.get('etag'));
    expect(Buffer.from(await item.arrayBuffer()).equals(Buffer.from(await sync.arrayBuffer()))).toBe(true);
    expect(chromiumUnder(worker.pid).length).toBeGreaterThan(0);
    expect(chromiumUnder(api!.pid)).toEqual([]);
    // The backlog is empty again.
    await new Promise((r) => setTimeout(r, 1100));
    expect(gauge(await metricsText(worker.url), 'cardshot_backlog_waiting{queue="items"}')).toBe(0);
    // A worker serves no API.
    const other = await fetch(`${worker.url}/render/url?url=x`, { headers: { 'x-api-key': key } });
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({ error: WORKER_NOT_FOUND });
    expect((await fetch(`${worker.url}/readyz`)).status).toBe(200);
  }, 90_000);

  it('answers synchronous screenshots from a worker with the right bytes and headers', async () => {
    const url = shotUrl(`/split?i=${Date.now()}`);
    const first = await call(url);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/png');
    expect(first.headers.get('x-cache')).toBe('MISS');
    const remaining = Number(first.headers.get('x-ratelimit-remaining'));
    const body = Buffer.from(await first.arrayBuffer());
    expect(pngSize(body)).toEqual({ width: 1200, height: 630 });
    expect((await pixelAt(body, 100, 300)).slice(0, 3)).toEqual([255, 0, 0]);
    expect((await pixelAt(body, 1100, 300)).slice(0, 3)).toEqual([0, 0, 255]);
    // The cache (the worker's) answers the second; the rate limit counted each request once.
    const second = await call(url);
    expect(second.headers.get('x-cache')).toBe('HIT');
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(Number(second.headers.get('x-ratelimit-remaining'))).toBe(remaining - 1);
    expect(Buffer.from(await second.arrayBuffer()).equals(body)).toBe(true);
    const again = await call(url, { headers: { 'if-none-match': first.headers.get('etag')! } });
    expect(again.status).toBe(304);

    const json = await call(shotUrl(`/split?j=${Date.now()}`, '&response=json'));
    expect(json.status).toBe(200);
    const facts = (await json.json()) as {
      image: { width: number; height: number };
      page: { status: number };
    };
    expect(facts.image).toMatchObject({ width: 1200, height: 630 });
    expect(facts.page.status).toBe(200);

    const pdf = await call(shotUrl(`/split?p=${Date.now()}`, '&format=pdf'));
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const file = path.join(dir, 'split.pdf');
    await writeFile(file, Buffer.from(await pdf.arrayBuffer()));
    expect(execFileSync('pdfinfo', [file]).toString()).toMatch(/Pages:\s+1\n/);

    // Credentials travel sealed through PostgreSQL and sign the page in on the worker.
    const signed = await call('/render/url', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `${site.url}/account`,
        cookies: [{ name: 'session', value: SESSION }],
        headers: { 'X-Token': TOKEN },
        basicAuth: BASIC,
        userAgent: AGENT,
      }),
    });
    expect(signed.status).toBe(200);
    const green = Buffer.from(await signed.arrayBuffer());
    expect((await pixelAt(green, 600, 300)).slice(0, 3)).toEqual([0, 255, 0]);

    // Answers are deleted as they are read: the table is empty, no body stays in PostgreSQL.
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    try {
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM "${schema}_pgboss".remote_shots`);
      expect(rows[0].n).toBe(0);
    } finally {
      await client.end();
    }
    expect(chromiumUnder(api!.pid)).toEqual([]);
  }, 90_000);

  it('hands a large answer over as a file in the shared results directory, and leaves none behind', async () => {
    const res = await call(shotUrl(`/noise?i=${Date.now()}`));
    expect(res.status).toBe(200);
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.length).toBeGreaterThan(SPILL_BYTES);
    expect(pngSize(body)).toEqual({ width: 1200, height: 630 });
    expect((await pixelAt(body, 5, 5)).slice(0, 3)).toEqual([255, 0, 0]);
    // The worker made the folder for it, and the api node took the file away with the answer.
    expect(await readdir(path.join(dir, 'results', '.remote-shots'))).toEqual([]);
  }, 60_000);

  it("an account past its plan's share gets 429 on the api node; another account is served meanwhile", async () => {
    const tiny = (page: string) =>
      fetch(`${api!.url}${shotUrl(page)}`, { headers: { 'x-api-key': tinyKey } });
    // One capturing and one waiting is the tiny plan's share; the third is refused at once.
    const held = [tiny(`/hold?ms=1500&t=1-${Date.now()}`), tiny(`/hold?ms=1500&t=2-${Date.now()}`)];
    await pages.nextRequest('/hold');
    const third = await tiny(`/hold?ms=1500&t=3-${Date.now()}`);
    expect(third.status).toBe(429);
    expect(await third.json()).toEqual({
      error:
        'Too many screenshots in progress for your account: your plan allows 1 at a time; retry when one has finished',
    });
    // The other account's screenshot is not held behind them.
    const started = Date.now();
    const other = await call(shotUrl(`/split?other=${Date.now()}`));
    expect(other.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1500);
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200]);
  }, 60_000);

  it('a worker killed mid-capture: the screenshot runs again on another worker', async () => {
    const holdsBefore = pages.hits('/hold');
    const [first] = workers;
    // The second worker is connected but stopped, so the first one claims the screenshot.
    const second = await startWorker('roles-w2');
    process.kill(second.pid, 'SIGSTOP');
    const started = Date.now();
    let answer: Promise<Response>;
    try {
      answer = call(shotUrl(`/hold?ms=3000&k=${Date.now()}`));
      await pages.nextRequest('/hold');
      await killWorker(first!);
    } finally {
      process.kill(second.pid, 'SIGCONT');
    }
    const res = await answer;
    expect(res.status).toBe(200);
    expect(pngSize(Buffer.from(await res.arrayBuffer()))).toEqual({ width: 1200, height: 630 });
    expect(Date.now() - started).toBeLessThan(21_000);
    expect(pages.hits('/hold') - holdsBefore).toBe(2);
    expect(chromiumUnder(second.pid).length).toBeGreaterThan(0);
  }, 60_000);

  it('a worker killed mid-job loses nothing: the other completes every item exactly once', async () => {
    const doomed = await startWorker('roles-w3');
    const items = Array.from({ length: 24 }, (_, i) => ({ url: `${pages.url}/hold?ms=250&n=${i}` }));
    const id = await submit(items);
    // Killed while it runs the job's items. It never saw the submission (the api node took it)
    // and the other worker holds the account's items from the start: before group-limits.ts it
    // capped the account at 1 for good and took none, so this kill tested nothing.
    await waitUntil(
      15_000,
      async () => {
        const active = gauge(await metricsText(doomed.url), 'cardshot_queue_active{queue="screenshot"}');
        return (active ?? 0) > 0;
      },
      'the new worker runs none of the job items',
    );
    expect((await jobOf(id)).counts.queued).toBeGreaterThan(0);
    await killWorker(doomed);
    const job = await waitForJob(id, 90_000);
    expect(job.counts).toEqual({ queued: 0, running: 0, succeeded: 24, failed: 0, canceled: 0 });
    await expectEachOnce(id, 24);
  }, 150_000);

  it('a worker stopped with SIGTERM hands back its items within the grace period, its Chromium gone', async () => {
    const leaving = await startWorker('roles-w4');
    const items = Array.from({ length: 24 }, (_, i) => ({ url: `${pages.url}/hold?ms=400&s=${i}` }));
    const id = await submit(items);
    await waitForJob(id, 30_000, (j) => j.counts.succeeded! >= 2);
    const browsers = chromiumUnder(leaving.pid).map((p) => p.pid);
    expect(browsers.length).toBeGreaterThan(0);
    const started = Date.now();
    process.kill(leaving.pid, 'SIGTERM');
    const gone = (pid: number) => !listProcesses().some((p) => p.pid === pid && p.state !== 'Z');
    while (!gone(leaving.pid) && Date.now() - started < GRACE_MS + 5000) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(Date.now() - started).toBeLessThan(GRACE_MS);
    expect(leaving.out()).toMatch(/"msg":"bye"/);
    // Checked before the helper's own clean-up, which would end a browser left behind.
    expect(browsers.filter((pid) => !gone(pid))).toEqual([]);
    await leaving.stop();
    workers.splice(workers.indexOf(leaving), 1);
    const job = await waitForJob(id, 90_000);
    expect(job.counts).toEqual({ queued: 0, running: 0, succeeded: 24, failed: 0, canceled: 0 });
    await expectEachOnce(id, 24);
  }, 150_000);

  it('the last worker killed mid-capture: the api node answers 503 within seconds, not at its time-out', async () => {
    expect(workers).toHaveLength(1);
    const started = Date.now();
    const answer = call(shotUrl(`/hold?ms=8000&z=${Date.now()}`));
    await pages.nextRequest('/hold');
    await killWorker(workers[0]!);
    const res = await answer;
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: NO_WORKER });
    // The wait for a replacement worker (3 s) and the watch (1 s), far below the 20 s time-out.
    expect(Date.now() - started).toBeLessThan(9000);
  }, 60_000);
});
