import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/errors.js';
import { dropSchema, postgresTestUrl, uniqueSchema } from '../helpers/services.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

// A PostgreSQL that hangs (connections open, no bytes moving: a network partition) rather than
// refusing: the real server behind a TCP proxy this test pauses. Requests must not hang with
// it. (A stopped PostgreSQL is covered end to end by scale-out.test.ts.)
const pgUrl = await postgresTestUrl();
const schema = uniqueSchema();
const TIMEOUT_MS = 300;

let t: TestApp;
let proxy: TcpProxy;
beforeAll(async () => {
  if (!pgUrl) return;
  const u = new URL(pgUrl);
  proxy = await startTcpProxy(u.hostname, Number(u.port || 5432));
  t = await startTestApp({
    databaseUrl: `postgres://${u.username}@127.0.0.1:${proxy.port}${u.pathname}`,
    databaseSchema: schema,
    // Every request asks the database, so the hang is met at once.
    keyCacheSeconds: 0,
    databaseTimeoutMs: TIMEOUT_MS,
  });
});
afterAll(async () => {
  proxy?.resume();
  await t?.close();
  await proxy?.close();
  if (pgUrl) await dropSchema(pgUrl, schema);
});

const card = async (key: string) => {
  const start = performance.now();
  const res = await t.inject({
    method: 'GET',
    url: '/render/template?template=blog&title=Hung%20database',
    headers: { 'x-api-key': key },
  });
  return { res, ms: performance.now() - start };
};

describe.skipIf(!pgUrl)('PostgreSQL hung', () => {
  it('a key verified in the last 30 s is admitted, another gets 503, both within the time-out; then back', async () => {
    const other = await t.modules.accounts.accounts.createKey({
      accountId: t.account.id,
      name: 'never used',
      environment: 'test',
    });
    expect((await card(t.key.key)).res.statusCode).toBe(200);
    proxy.pause();
    try {
      const known = await card(t.key.key);
      expect(known.res.statusCode).toBe(200);
      expect(known.ms).toBeLessThan(TIMEOUT_MS + 500);
      const unknown = await card(other.key);
      await expectError(unknown.res, 503, 'API keys cannot be checked right now; retry shortly');
      expect(unknown.ms).toBeLessThan(TIMEOUT_MS + 500);
    } finally {
      proxy.resume();
    }
    const deadline = Date.now() + 10_000;
    while ((await card(other.key)).res.statusCode !== 200) {
      if (Date.now() > deadline) throw new Error('the database did not come back');
      await new Promise((r) => setTimeout(r, 50));
    }
  });
});

describe.skipIf(!pgUrl)('PostgreSQL hung, then its connections cut (issue 20 §4)', () => {
  it('the process survives, requests get 503 with Retry-After at once while it hangs, and it closes by itself', async () => {
    const u = new URL(pgUrl!);
    const own = await startTcpProxy(u.hostname, Number(u.port || 5432));
    const ownSchema = uniqueSchema();
    const SLOW_MS = 2000;
    const app = await startTestApp({
      databaseUrl: `postgres://${u.username}@127.0.0.1:${own.port}${u.pathname}`,
      databaseSchema: ownSchema,
      keyCacheSeconds: 0,
      databaseTimeoutMs: SLOW_MS,
    });
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const other = await app.modules.accounts.accounts.createKey({
        accountId: app.account.id,
        name: 'never cached',
        environment: 'test',
      });
      const get = async () => {
        const start = performance.now();
        const res = await app.inject({
          method: 'GET',
          url: '/render/template?template=blog&title=Cut%20database',
          headers: { 'x-api-key': other.key },
        });
        return { res, ms: performance.now() - start };
      };
      // The app's own key proves the database works; `other` is never verified before the
      // hang, so no recent verification admits it meanwhile.
      expect(
        (await app.inject({ method: 'GET', url: '/render/template?template=blog&title=Up' })).statusCode,
      ).toBe(200);

      own.pause();
      // The first requests meet the hang (each waits the time-out, several at once so that
      // queries are in flight on several pooled connections) and open the breaker.
      const first = await Promise.all([get(), get(), get()]);
      for (const r of first) expect(r.res.statusCode).toBe(503);
      expect(app.store.databaseHealth?.().state).toBe('open');
      // From then on: 503 at once, with Retry-After, not the time-out each.
      for (let i = 0; i < 3; i++) {
        const r = await get();
        await expectError(r.res, 503, 'API keys cannot be checked right now; retry shortly');
        expect(r.res.headers['retry-after']).toBe('5');
        expect(r.ms).toBeLessThan(SLOW_MS / 2);
      }
      const readyz = await app.inject({ method: 'GET', url: '/readyz', auth: false });
      expect(readyz.statusCode).toBe(503);
      expect(readyz.json().checks.database.detail).toMatch(
        /not answering since .*: no answer within 2000 ms/,
      );

      // The black hole ends with the connections cut (hung queries still on them): pg emits
      // 'error' on checked-out clients, which used to end the process.
      await own.stop();
      own.resume();
      await new Promise((r) => setTimeout(r, 300));
      await own.start();
      const deadline = Date.now() + 15_000;
      while ((await get()).res.statusCode !== 200) {
        if (Date.now() > deadline) throw new Error('the breaker did not close by itself');
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(app.store.databaseHealth?.().state).toBe('closed');
      expect(uncaught).toEqual([]);
      expect(app.logs.some((l) => l.msg === 'database answering again')).toBe(true);
    } finally {
      process.off('uncaughtException', onUncaught);
      own.resume();
      await app.close();
      await own.close();
      await dropSchema(pgUrl!, ownSchema);
    }
  }, 60_000);
});
