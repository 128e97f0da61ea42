import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
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
      expect(unknown.res.statusCode).toBe(503);
      expect(unknown.res.json()).toEqual({ error: 'API keys cannot be checked right now; retry shortly' });
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
