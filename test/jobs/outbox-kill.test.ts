// @module-tag process
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAccounts } from '../../src/accounts/open.js';
import { verifyWebhook } from '../../src/client/index.js';
import { TEMPLATE_NAMES } from '../../src/render/template/registry.js';
import { loadConfig } from '../../src/settings.js';
import { type NodeProcess, startNodeProcess } from '../helpers/node-process.js';
import { dropSchema, postgresTestUrl, uniqueSchema } from '../helpers/services.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// Issue 28 §3, durable events: a real server process (dist/src/main.js) stores its items'
// results and their events (the outbox), and is SIGKILLed before it published them
// (CARDSHOT_TEST_OUTBOX_HOLD=before-publish), or after it published them but before it deleted
// them (after-publish). Started again on the same data (SQLite data dir, or the PostgreSQL
// schema), it publishes what was left; a real receiver on 127.0.0.1 gets job.completed and each
// render.succeeded exactly once, under one webhook-id.
const root = path.resolve(import.meta.dirname, '../..');
const ITEMS = 3;
const pgUrl = await postgresTestUrl();
const targets = [{ name: 'SQLite', pg: false }, ...(pgUrl ? [{ name: 'PostgreSQL', pg: true }] : [])];

let dir = '';
let receiver: WebhookReceiver;
const nodes: NodeProcess[] = [];
const schemas: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-outbox-kill-'));
  receiver = await startWebhookReceiver();
  await writeFile(
    path.join(dir, 'plans.json'),
    JSON.stringify({
      batch: {
        templates: '*',
        screenshots: false,
        rateLimit: { requests: 100_000, windowSeconds: 60 },
        jobs: { concurrency: 2 },
      },
    }),
  );
});

afterAll(async () => {
  for (const n of nodes) await n.stop();
  await receiver?.close();
  for (const s of schemas) {
    await dropSchema(pgUrl!, s);
    await dropSchema(pgUrl!, `${s}_pgboss`);
  }
  await rm(dir, { recursive: true, force: true });
}, 60_000);

/** A fresh database (a data dir, plus a schema on PostgreSQL) with an account and its key. */
async function setUp(target: { name: string; pg: boolean }, tag: string) {
  const dataDir = path.join(dir, `${target.name}-${tag}`);
  await mkdir(dataDir, { recursive: true });
  const env: Record<string, string> = {
    CARDSHOT_SECRET: 'outbox-kill-test-secret-0123456789abcdef',
    CARDSHOT_PLANS_FILE: path.join(dir, 'plans.json'),
    CARDSHOT_JOBS_WORKERS: '2',
    CARDSHOT_ALLOW_PRIVATE_HOSTS: receiver.hostPort,
    CARDSHOT_LOG_LEVEL: 'info',
  };
  if (target.pg) {
    const schema = uniqueSchema();
    schemas.push(schema);
    env.DATABASE_URL = pgUrl!;
    env.CARDSHOT_DATABASE_SCHEMA = schema;
  }
  const admin = await openAccounts(
    loadConfig({ logLevel: 'silent', dataDir }, env),
    pino({ level: 'silent' }),
    {
      templates: TEMPLATE_NAMES,
    },
  );
  let key: string;
  try {
    const account = await admin.accounts.createAccount({
      name: 'Outbox',
      email: 'outbox@example.com',
      plan: 'batch',
    });
    key = (await admin.accounts.createKey({ accountId: account.id, name: 'k', environment: 'test' })).key;
  } finally {
    await admin.close();
  }
  /** Rows left in the outbox. */
  const outbox = async (): Promise<number> => {
    if (!target.pg) {
      const db = new Database(path.join(dataDir, 'cardshot.sqlite'), { readonly: true });
      try {
        return (db.prepare('SELECT count(*) AS n FROM job_outbox').get() as { n: number }).n;
      } finally {
        db.close();
      }
    }
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    try {
      const r = await client.query(
        `SELECT count(*)::int AS n FROM "${env.CARDSHOT_DATABASE_SCHEMA}".job_outbox`,
      );
      return r.rows[0].n as number;
    } finally {
      await client.end();
    }
  };
  const start = async (name: string, extra: Record<string, string> = {}) => {
    const node = await startNodeProcess(root, name, { ...env, ...extra }, { dataDir });
    nodes.push(node);
    return node;
  };
  /** SIGKILL: nothing of its shutdown runs (and nothing is left to stop). */
  const kill = async (node: NodeProcess) => {
    await node.kill();
    nodes.splice(nodes.indexOf(node), 1);
  };
  const stop = async (node: NodeProcess) => {
    await node.stop();
    nodes.splice(nodes.indexOf(node), 1);
  };
  return { key, start, outbox, kill, stop };
}

const api = (key: string, base: string, url: string, init: RequestInit = {}) =>
  fetch(`${base}${url}`, {
    ...init,
    headers: { 'x-api-key': key, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  for (const end = Date.now() + ms; ; ) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Submits a job naming a new endpoint at `/<tag>` that takes job.completed and render.succeeded. */
async function submit(node: NodeProcess, key: string, tag: string) {
  const ep = await api(key, node.url, '/webhooks', {
    method: 'POST',
    body: JSON.stringify({ url: `${receiver.url}/${tag}`, events: ['job.completed', 'render.succeeded'] }),
  });
  expect(ep.status).toBe(201);
  const { id: endpoint, secret } = (await ep.json()) as { id: string; secret: string };
  secrets.set(tag, secret);
  const items = Array.from({ length: ITEMS }, (_, i) => ({ template: 'blog', title: `${tag} ${i}` }));
  const res = await api(key, node.url, '/jobs', {
    method: 'POST',
    body: JSON.stringify({ items, webhook: endpoint }),
  });
  expect(res.status).toBe(202);
  const id = ((await res.json()) as { id: string }).id;
  await until('the job to complete', async () => {
    const s = (await (await api(key, node.url, `/jobs/${id}`)).json()) as { status: string };
    return s.status === 'completed' ? s : undefined;
  });
  return id;
}

/** Each endpoint's signing secret (shown once, at creation), by tag. */
const secrets = new Map<string, string>();

/** What the receiver got at `/<tag>`: each request's event type, webhook-id and body data. */
const got = (tag: string) =>
  receiver.received
    .filter((r) => r.path === `/${tag}`)
    .map((r) => {
      const body = JSON.parse(r.body) as {
        type: string;
        data: { id?: string; jobId?: string; index?: number };
      };
      return { type: body.type, webhookId: String(r.headers['webhook-id']), data: body.data };
    });

/**
 * Exactly one job.completed and one render.succeeded per item, each request under its own
 * webhook-id and signed with the endpoint's secret (checked as a receiver would, by the client's
 * verifyWebhook), the ones the restarted node published included.
 */
async function expectOnce(tag: string, jobId: string) {
  for (const r of receiver.received.filter((x) => x.path === `/${tag}`)) {
    expect((await verifyWebhook(r.body, r.headers, secrets.get(tag)!)).type).toMatch(
      /^(job\.completed|render\.succeeded)$/,
    );
  }
  const all = got(tag);
  const completed = all.filter((r) => r.type === 'job.completed');
  expect(completed).toHaveLength(1);
  expect(completed[0]!.data.id).toBe(jobId);
  const renders = all.filter((r) => r.type === 'render.succeeded');
  expect(renders.map((r) => r.data.index).sort()).toEqual(Array.from({ length: ITEMS }, (_, i) => i));
  expect(renders.every((r) => r.data.jobId === jobId)).toBe(true);
  expect(new Set(all.map((r) => r.webhookId)).size).toBe(all.length);
}

describe.each(targets)('job events across a SIGKILL on $name', (target) => {
  it('killed after the store write, before the publish: the next start publishes them, once', async () => {
    const tag = `${target.name}-before`;
    const s = await setUp(target, 'before');
    const a = await s.start('outbox-a', { CARDSHOT_TEST_OUTBOX_HOLD: 'before-publish' });
    const jobId = await submit(a, s.key, tag);
    // Stored, never published: the receiver has nothing, the outbox holds the events.
    await new Promise((r) => setTimeout(r, 1500));
    expect(got(tag)).toEqual([]);
    expect(await s.outbox()).toBe(ITEMS + 1);
    await s.kill(a);

    const b = await s.start('outbox-b');
    await until('the job.completed delivery', async () =>
      got(tag).some((r) => r.type === 'job.completed') && got(tag).length >= ITEMS + 1 ? true : undefined,
    );
    await until('an empty outbox', async () => ((await s.outbox()) === 0 ? true : undefined));
    // Time for any second delivery to show.
    await new Promise((r) => setTimeout(r, 1500));
    await expectOnce(tag, jobId);
    await s.stop(b);
  }, 180_000);

  it('killed after the publish, before the delete: the next start publishes again, the receiver gets one', async () => {
    const tag = `${target.name}-after`;
    const s = await setUp(target, 'after');
    const a = await s.start('outbox-c', { CARDSHOT_TEST_OUTBOX_HOLD: 'after-publish' });
    const jobId = await submit(a, s.key, tag);
    await until('the job.completed delivery', async () =>
      got(tag).some((r) => r.type === 'job.completed') && got(tag).length >= ITEMS + 1 ? true : undefined,
    );
    // Published (and delivered), still in the outbox: the node "dies" before the delete.
    expect(await s.outbox()).toBe(ITEMS + 1);
    await s.kill(a);

    // The next start takes the rows once the dead node's lease ends, publishes them again
    // (same event ids, so nothing new is queued) and deletes them.
    const d = await s.start('outbox-d');
    await until('an empty outbox', async () => ((await s.outbox()) === 0 ? true : undefined));
    await new Promise((r) => setTimeout(r, 1500));
    await expectOnce(tag, jobId);
    await s.stop(d);
  }, 180_000);
});
