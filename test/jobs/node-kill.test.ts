// @module-tag process
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAccounts } from '../../src/accounts/open.js';
import { TEMPLATE_NAMES } from '../../src/render/template/registry.js';
import { loadConfig } from '../../src/settings.js';
import { type NodeProcess, startNodeProcess } from '../helpers/node-process.js';

// Issue 28 §3, durable: a real server process (dist/src/main.js, the embedded default: SQLite
// store and queue in its data dir) is SIGKILLed mid-job and started again on the same data dir;
// the job completes with every item exactly once in its results.
const root = path.resolve(import.meta.dirname, '../..');
const ITEMS = 240;
let dir = '';
let dataDir = '';
let key = '';
let env: Record<string, string> = {};
let node: NodeProcess | undefined;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-jobs-kill-'));
  dataDir = path.join(dir, 'data');
  const plansFile = path.join(dir, 'plans.json');
  // Room for every item in the rate limit; two running at once.
  await writeFile(
    plansFile,
    JSON.stringify({
      batch: {
        templates: '*',
        screenshots: false,
        rateLimit: { requests: 100_000, windowSeconds: 60 },
        jobs: { concurrency: 2 },
      },
    }),
  );
  env = {
    CARDSHOT_SECRET: 'jobs-kill-test-secret-0123456789abcdef',
    CARDSHOT_PLANS_FILE: plansFile,
    CARDSHOT_JOBS_WORKERS: '2',
    // A dead node's running item runs again 2 s after its last renewal.
    CARDSHOT_JOBS_LEASE_SECONDS: '2',
    CARDSHOT_LOG_LEVEL: 'info',
  };
  const admin = await openAccounts(
    loadConfig({ logLevel: 'silent', dataDir }, env),
    pino({ level: 'silent' }),
    { templates: TEMPLATE_NAMES },
  );
  try {
    const account = await admin.accounts.createAccount({
      name: 'Batch',
      email: 'batch@example.com',
      plan: 'batch',
    });
    key = (await admin.accounts.createKey({ accountId: account.id, name: 'k', environment: 'test' })).key;
  } finally {
    await admin.close();
  }
}, 60_000);

afterAll(async () => {
  await node?.stop();
  await rm(dir, { recursive: true, force: true });
}, 30_000);

const api = (base: string, url: string, init: RequestInit = {}) =>
  fetch(`${base}${url}`, { ...init, headers: { 'x-api-key': key, ...(init.headers ?? {}) } });

describe('a node killed mid-job', () => {
  it('is started again on its data dir and completes the job with every item exactly once', async () => {
    node = await startNodeProcess(root, 'jobs-a', env, { dataDir });
    const items = Array.from({ length: ITEMS }, (_, i) => ({ template: 'blog', title: `Item ${i}` }));
    const res = await api(node.url, '/jobs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items }),
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };

    // Kill it once some items are done and most are not.
    const status = async (base: string) =>
      (await (await api(base, `/jobs/${id}`)).json()) as { status: string; counts: Record<string, number> };
    for (let end = Date.now() + 60_000; ; ) {
      const s = await status(node.url);
      if (s.counts.succeeded! >= 20) break;
      if (Date.now() > end) throw new Error(`no progress: ${JSON.stringify(s)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await node.kill();
    const before = await (async () => {
      node = await startNodeProcess(root, 'jobs-b', env, { dataDir });
      return status(node.url);
    })();
    expect(before.status).toBe('running');
    expect(before.counts.succeeded).toBeLessThan(ITEMS);

    let done: Awaited<ReturnType<typeof status>>;
    for (let end = Date.now() + 90_000; ; ) {
      done = await status(node.url);
      if (done.status !== 'running' && done.status !== 'queued') break;
      if (Date.now() > end) throw new Error(`did not complete: ${JSON.stringify(done)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(done.status).toBe('completed');
    expect(done.counts).toEqual({ queued: 0, running: 0, succeeded: ITEMS, failed: 0, canceled: 0 });

    // Every item has one result, and the job's directory holds exactly one file per item.
    const seen = new Set<number>();
    for (let cursor: string | null = ''; cursor !== null; ) {
      const page = (await (
        await api(node.url, `/jobs/${id}/items?limit=100${cursor ? `&cursor=${cursor}` : ''}`)
      ).json()) as {
        items: Array<{ index: number; status: string; result: { etag: string } | null }>;
        nextCursor: string | null;
      };
      for (const item of page.items) {
        expect(item.status).toBe('succeeded');
        expect(item.result).not.toBeNull();
        seen.add(item.index);
      }
      cursor = page.nextCursor;
    }
    expect(seen.size).toBe(ITEMS);
    const accountDirs = await readdir(path.join(dataDir, 'jobs'));
    const files = await readdir(path.join(dataDir, 'jobs', accountDirs[0]!, id));
    expect(files.filter((f) => f.endsWith('.png'))).toHaveLength(ITEMS);
    expect(new Set(files.filter((f) => f.endsWith('.png')).map((f) => f.split('-')[0])).size).toBe(ITEMS);
  }, 240_000);
});
