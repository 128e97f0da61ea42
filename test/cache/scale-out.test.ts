import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountsModule, openAccounts } from '../../src/accounts/open.js';
import { TEMPLATE_NAMES } from '../../src/render/template/registry.js';
import { loadConfig } from '../../src/settings.js';
import { type NginxHandle, nginxAvailable, startNginx } from '../helpers/nginx.js';
import { type NodeProcess, startNodeProcess } from '../helpers/node-process.js';
import { type PageServer, startPageServer } from '../helpers/pages.js';
import { pngSize } from '../helpers/png.js';
import {
  deleteRedisPrefixes,
  dropSchema,
  postgresTestUrl,
  redisTestUrl,
  uniqueRedisPrefix,
  uniqueSchema,
} from '../helpers/services.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

// Issue 6 §2 and §3 on this machine: two real server processes (dist/src/main.js) on the real
// PostgreSQL (a schema of their own) and Redis (a prefix of their own), behind Debian's nginx
// running deploy/nginx.conf on loopback. Both nodes reach PostgreSQL and Redis through TCP
// proxies this test controls, so it can cut them without touching the servers others use.
const root = path.resolve(import.meta.dirname, '../..');
const pgUrl = await postgresTestUrl();
const redisUrl = await redisTestUrl();
const ready = Boolean(pgUrl && redisUrl && nginxAvailable());

const schema = uniqueSchema();
const prefix = uniqueRedisPrefix();
const SECRET = 'scale-out-test-secret-0123456789abcdef';
const LIMIT = 10;

let dir: string;
let pages: PageServer;
let pgProxy: TcpProxy;
let redisProxy: TcpProxy;
let a: NodeProcess;
let b: NodeProcess;
let nginx: NginxHandle;
let env: Record<string, string>;
let devKey: string;
let firstRunFiles = 0;
let invite: string;
/** The same database straight (not through the cut-able proxy), to set up accounts quickly. */
let admin: AccountsModule;

beforeAll(async () => {
  if (!ready) return;
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-scale-'));
  pages = await startPageServer();
  const pg = new URL(pgUrl!);
  const rd = new URL(redisUrl!);
  pgProxy = await startTcpProxy(pg.hostname, Number(pg.port || 5432));
  redisProxy = await startTcpProxy(rd.hostname, Number(rd.port || 6379));
  const plans = path.join(dir, 'plans.json');
  await writeFile(
    plans,
    JSON.stringify({
      metered: {
        templates: '*',
        screenshots: { viewports: '*' },
        rateLimit: { requests: LIMIT, windowSeconds: 600 },
      },
    }),
  );
  env = {
    NODE_ENV: 'production',
    DATABASE_URL: `postgres://${pg.username}@127.0.0.1:${pgProxy.port}${pg.pathname}`,
    CARDSHOT_DATABASE_SCHEMA: schema,
    REDIS_URL: redisProxy.url('redis', rd.pathname),
    CARDSHOT_REDIS_PREFIX: prefix,
    CARDSHOT_SECRET: SECRET,
    // Nodes on one database share one job results directory (a node with its own refuses to start).
    CARDSHOT_JOBS_RESULTS_DIR: path.join(dir, 'job-results'),
    CARDSHOT_PLANS_FILE: plans,
    CARDSHOT_ALLOW_PRIVATE_HOSTS: pages.hostPort,
    CARDSHOT_TRUST_PROXY: 'true',
    // The longest Redis time-out there is: on a 2-core machine shared with other suites a
    // node's event loop can stall long enough for 50 ms to pass, and a node that bypasses
    // Redis (as it should when Redis is slow) would capture on its own.
    CARDSHOT_REDIS_TIMEOUT_MS: '100',
    // Lean on a shared 2-core machine: one capture at a time, one spare context per node.
    CARDSHOT_SCREENSHOT_CONCURRENCY: '1',
    CARDSHOT_SCREENSHOT_SPARE_CONTEXTS: '1',
  };
  // Both at once on an empty schema: migrations and the first-run account must not race.
  [a, b] = await Promise.all([startNodeProcess(root, 'node-a', env), startNodeProcess(root, 'node-b', env)]);
  // In production the first-run key goes to data/first-run.txt of the one node that made it.
  const banners = await Promise.all(
    [a, b].map((n) => readFile(path.join(n.dataDir, 'first-run.txt'), 'utf8').catch(() => '')),
  );
  firstRunFiles = banners.filter((t) => t !== '').length;
  const banner = banners.join('\n');
  devKey = /API key: +(cs_development_[0-9A-Za-z]{28})/.exec(banner)?.[1] ?? '';
  invite = /\/dashboard\/invite\?token=(csinv_[\w-]{32})/.exec(banner)?.[1] ?? '';
  admin = await openAccounts(
    loadConfig({ logLevel: 'silent' }, { ...env, DATABASE_URL: pgUrl!, REDIS_URL: '' }),
    pino({ level: 'silent' }),
    { templates: TEMPLATE_NAMES },
  );
  nginx = await startNginx(root, [a.port, b.port]);
  await Promise.all([a.waitFor(/"msg":"screenshots ready"/), b.waitFor(/"msg":"screenshots ready"/)]);
}, 90_000);

afterAll(async () => {
  if (!ready) return;
  await nginx?.stop();
  await Promise.allSettled([a?.stop(), b?.stop()]);
  await admin?.close();
  await pgProxy?.close();
  await redisProxy?.close();
  await pages?.close();
  await dropSchema(pgUrl!, schema);
  await deleteRedisPrefixes(redisUrl!);
  await rm(dir, { recursive: true, force: true });
}, 60_000);

/** GET a card from `base` with `key`. */
const card = (base: string, key: string, title = 'Scale out', headers: Record<string, string> = {}) =>
  fetch(`${base}/render/template?${new URLSearchParams({ template: 'blog', title })}`, {
    headers: { 'x-api-key': key, ...headers },
  });

const shot = (base: string, key: string, target: string) =>
  fetch(`${base}/render/url?${new URLSearchParams({ url: target })}`, { headers: { 'x-api-key': key } });

/** A new account on `plan` with one key. */
async function account(plan: string): Promise<{ key: string; id: string; accountId: string }> {
  const acc = await admin.accounts.createAccount({
    name: plan,
    email: `${plan}-${Math.random().toString(36).slice(2)}@scale.test`,
    plan,
  });
  const made = await admin.accounts.createKey({ accountId: acc.id, name: 'k', environment: 'ci' });
  return { key: made.key, id: made.record.id, accountId: acc.id };
}

/** Runs `npx cardshot …` against the nodes' database and Redis; resolves with parsed JSON stdout. */
function cli(args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(root, 'bin/cardshot.js'), ...args, '--json'],
      { env: { ...process.env, ...env }, cwd: dir },
      (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
    );
  });
}

/** How many times a node has reported bypassing Redis so far. */
const bypassCount = () =>
  [...a.logs(), ...b.logs()].filter((l) => String(l.msg).startsWith('Redis is unavailable')).length;

/** Log lines in which a node reported bypassing Redis, to explain a failed sharing assertion. */
const bypasses = () =>
  [...a.logs(), ...b.logs()]
    .filter((l) => String(l.msg).startsWith('Redis is unavailable'))
    .map((l) => `${l.time}: ${l.err}`)
    .join('; ');

/** Polls `check` every 25 ms until it is true; resolves with the milliseconds it took. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const start = performance.now();
  for (;;) {
    if (await check()) return performance.now() - start;
    if (performance.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A browser session on one node's dashboard (cookies, CSRF token, Origin). */
function dashboard(base: string) {
  const cookies = new Map<string, string>();
  const keep = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const [name, value] = pair!.split('=');
      cookies.set(name!, value!);
    }
    return res;
  };
  const cookie = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  return {
    async get(p: string) {
      return keep(await fetch(`${base}${p}`, { headers: { cookie: cookie() }, redirect: 'manual' }));
    },
    async post(p: string, form: Record<string, string>) {
      return keep(
        await fetch(`${base}${p}`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookie(), origin: base },
          body: new URLSearchParams(form),
        }),
      );
    },
  };
}
const formField = (html: string, name: string) =>
  new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? '';

describe.skipIf(!ready)('two nodes behind nginx on PostgreSQL and Redis', () => {
  let webKey = '';
  let webKeyId = '';
  let session: ReturnType<typeof dashboard>;

  it('started together on an empty database: one first-run key, and it works through either node', async () => {
    expect(devKey).not.toBe('');
    expect(firstRunFiles).toBe(1);
    expect(`${a.out()}${b.out()}`).not.toContain(devKey);
    for (const base of [a.url, b.url, nginx.url]) expect((await card(base, devKey)).status).toBe(200);
  });

  it('a key created in node A’s dashboard works on node B at once', async () => {
    session = dashboard(a.url);
    const page = await session.get(`/dashboard/invite?token=${invite}`);
    expect(page.status).toBe(200);
    const accepted = await session.post('/dashboard/invite', {
      _csrf: formField(await page.text(), '_csrf'),
      token: invite,
      password: 'a long scale-out passphrase',
      confirm: 'a long scale-out passphrase',
    });
    expect(accepted.status).toBe(303);
    const keys = await (await session.get('/dashboard/keys')).text();
    const created = await session.post('/dashboard/keys', {
      _csrf: formField(keys, '_csrf'),
      once: formField(keys, 'once'),
      name: 'Website',
      environment: 'production',
      custom: '',
      expires: '',
    });
    expect(created.status).toBe(201);
    const shown = await created.text();
    webKey = /cs_production_[0-9A-Za-z]{28}/.exec(shown)?.[0] ?? '';
    webKeyId = /Key id <code>(key_[0-9A-Za-z]+)<\/code>/.exec(shown)?.[1] ?? '';
    expect(webKeyId).not.toBe('');
    const onB = await card(b.url, webKey);
    expect(onB.status).toBe(200);
    expect(pngSize(Buffer.from(await onB.arrayBuffer()))).toEqual({ width: 1200, height: 630 });
  });

  it('revoked in node A’s dashboard, it gets 401 on node B within 1 s (B had it cached for 5 s)', async () => {
    expect((await card(b.url, webKey)).status).toBe(200); // verified and cached on B just now
    const keys = await (await session.get('/dashboard/keys')).text();
    const revoked = await session.post(`/dashboard/keys/${webKeyId}/revoke`, {
      _csrf: formField(keys, '_csrf'),
    });
    expect(revoked.status).toBe(303);
    const ms = await within(1000, async () => (await card(b.url, webKey)).status === 401);
    expect(ms).toBeLessThan(1000);
    const res = await card(b.url, webKey);
    expect(await res.json()).toEqual({ error: 'Missing or invalid API key' });
  });

  it('revoked with the CLI, the key gets 401 on both nodes within 1 s', async () => {
    const doomed = await account('pro');
    for (const base of [a.url, b.url]) expect((await card(base, doomed.key)).status).toBe(200);
    await cli(['keys', 'revoke', doomed.id]);
    const ms = await within(1000, async () => {
      const [ra, rb] = await Promise.all([card(a.url, doomed.key), card(b.url, doomed.key)]);
      return ra.status === 401 && rb.status === 401;
    });
    expect(ms).toBeLessThan(1000);
  });

  it('the rate limit is global: requests spread over both nodes through nginx, exactly the limit succeed', async () => {
    const metered = (await account('metered')).key;
    const before = nginx.accessLog().length;
    const statuses = await Promise.all(
      Array.from({ length: LIMIT + 6 }, () => card(nginx.url, metered, 'Limited').then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(6);
    const upstreams = new Set(
      nginx
        .accessLog()
        .slice(before)
        .map((l) => /upstream=(\S+)/.exec(l)?.[1]),
    );
    expect(upstreams).toEqual(new Set([`127.0.0.1:${a.port}`, `127.0.0.1:${b.port}`]));
  });

  it('passes X-Request-Id through nginx, or gives each request one', async () => {
    const mine = await card(nginx.url, devKey, 'Scale out', { 'x-request-id': 'trace-abc-123' });
    expect(mine.headers.get('x-request-id')).toBe('trace-abc-123');
    const given = await card(nginx.url, devKey);
    expect(given.headers.get('x-request-id')).toMatch(/^[0-9a-f]{32}$/);
    const logged = [...a.logs(), ...b.logs()].filter((l) => l.reqId === 'trace-abc-123');
    expect(logged.length).toBeGreaterThan(0);
  });

  it('a screenshot captured through node A is a cache HIT through node B', async () => {
    const target = `${pages.url}/split?scale=hit`;
    const hits = pages.hits('/split');
    const first = await shot(a.url, devKey, target);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-cache')).toBe('MISS');
    const body = Buffer.from(await first.arrayBuffer());
    const second = await shot(b.url, devKey, target);
    expect(second.status).toBe(200);
    expect(second.headers.get('x-cache'), `Redis bypassed: ${bypasses()}`).toBe('HIT');
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(Buffer.from(await second.arrayBuffer()).equals(body)).toBe(true);
    expect(pages.hits('/split') - hits).toBe(1);
  });

  it('identical requests on node A and node B at the same moment cause one capture', async () => {
    // A node bypasses Redis (by design) when its event loop stalls past the Redis time-out, as
    // happens on this 2-core machine under other suites; then both capture, which says nothing
    // about coordination. Such a round is taken again (at most twice), with a fresh URL.
    let round = 0;
    let ra: Response;
    let rb: Response;
    let captures: number;
    for (;;) {
      const target = `${pages.url}/hold?ms=400&scale=once-${round}`;
      const hits = pages.hits('/hold');
      const before = bypassCount();
      [ra, rb] = await Promise.all([shot(a.url, devKey, target), shot(b.url, devKey, target)]);
      captures = pages.hits('/hold') - hits;
      if (captures === 1 || bypassCount() === before || ++round > 2) break;
      await new Promise((r) => setTimeout(r, 1500)); // the breakers' probes close them again
    }
    expect([ra.status, rb.status]).toEqual([200, 200]);
    expect(ra.headers.get('etag')).toBe(rb.headers.get('etag'));
    expect(captures, `captures; Redis bypassed: ${bypasses()}`).toBe(1);
    // The node that did not capture says how long it waited for the other.
    const timings = [ra, rb].map((r) => r.headers.get('server-timing') ?? '');
    expect(timings.filter((t) => /(^|, )wait;dur=/.test(t))).toHaveLength(1);
  });

  it('Redis cut: requests keep working through nginx (per-node limits, local cache); shared again once it is back', async () => {
    await redisProxy.stop();
    try {
      for (const [i, base] of [a.url, b.url, nginx.url, nginx.url].entries()) {
        const started = performance.now();
        const res = await card(base, devKey, `Redis down ${i}`);
        expect(res.status).toBe(200);
        expect(performance.now() - started).toBeLessThan(2000); // a fresh render, never a hang
      }
      const down = await shot(a.url, devKey, `${pages.url}/split?scale=redis-down`);
      expect(down.status).toBe(200);
    } finally {
      await redisProxy.start();
    }
    await Promise.all([
      a.waitFor(/"msg":"Redis answers again/, 10_000),
      b.waitFor(/"msg":"Redis answers again/, 10_000),
    ]);
    const target = `${pages.url}/split?scale=redis-back`;
    expect((await shot(a.url, devKey, target)).headers.get('x-cache')).toBe('MISS');
    expect((await shot(b.url, devKey, target)).headers.get('x-cache')).toBe('HIT');
  });

  it('PostgreSQL cut: keys verified in the last 30 s keep working, others get 503; back by itself', async () => {
    const unseen = await account('pro');
    for (const base of [a.url, b.url]) expect((await card(base, devKey)).status).toBe(200);
    await pgProxy.stop();
    try {
      // Past the 5 s key cache: the nodes ask PostgreSQL, fail, and fall back on the 30 s window.
      await new Promise((r) => setTimeout(r, 5200));
      for (const base of [nginx.url, a.url, b.url]) expect((await card(base, devKey)).status).toBe(200);
      const refused = await card(nginx.url, unseen.key);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(await refused.json()).toEqual({ error: 'API keys cannot be checked right now; retry shortly' });
    } finally {
      await pgProxy.start();
    }
    await within(5000, async () => (await card(nginx.url, unseen.key)).status === 200);
    for (const base of [a.url, b.url]) expect((await card(base, unseen.key)).status).toBe(200);
  });
});
