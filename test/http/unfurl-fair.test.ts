// @module-tag slow
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startUnfurlSite, type UnfurlSite } from '../helpers/unfurl-site.js';

/**
 * Issue 30 §2: a hostile account that floods GET /unfurl with pages that never finish cannot
 * starve another account. Its checks take its share of the unfurl queue (2 running, 4 waiting),
 * the rest are refused with 429 at once, and the other account's check runs beside them.
 */
let site: UnfurlSite;
let t: TestApp;
let hostileKey: string;

beforeAll(async () => {
  site = await startUnfurlSite();
  t = await startTestApp(
    { allowPrivateHosts: site.hostPorts, unfurlTimeoutMs: 2000, unfurlConcurrency: 4 },
    { unfurlCa: site.ca },
  );
  const b = await t.modules.accounts.accounts.createAccount({
    name: 'Hostile',
    email: `hostile-${Date.now()}@example.com`,
    plan: 'pro',
  });
  hostileKey = (
    await t.modules.accounts.accounts.createKey({ accountId: b.id, name: 'b', environment: 'test' })
  ).key;
}, 30_000);

afterAll(async () => {
  await t?.close();
  await site?.close();
});

const check = (path: string, key?: string) =>
  t.inject({
    method: 'GET',
    url: `/unfurl?url=${encodeURIComponent(site.url + path)}`,
    ...(key ? { headers: { 'x-api-key': key } } : {}),
  });

describe('GET /unfurl under a flood', () => {
  it("answers account A at once while account B's 20 slow checks hold only B's share", async () => {
    const flood = Array.from({ length: 20 }, (_, i) => check(`/never-ends?n=${i}`, hostileKey));
    // Let B's checks take their slots first.
    await new Promise((r) => setTimeout(r, 100));
    const started = performance.now();
    const mine = await check('/clean');
    const tookMs = performance.now() - started;
    expect(mine.statusCode).toBe(200);
    expect(mine.json().summary).toEqual({ errors: 0, warnings: 0, infos: 0 });
    // Well under one of B's time-outs: A did not wait behind B.
    expect(tookMs).toBeLessThan(1500);

    const answers = await Promise.all(flood);
    const statuses = answers.map((a) => a.statusCode);
    // 2 running and 4 waiting: those six report the time-out; the others were refused at once.
    expect(statuses.filter((s) => s === 200)).toHaveLength(6);
    expect(statuses.filter((s) => s === 429)).toHaveLength(14);
    const refused = answers.find((a) => a.statusCode === 429)!;
    expect(refused.json()).toEqual({
      error: 'Too many link checks in progress for your account; retry shortly',
    });
    expect(refused.headers['retry-after']).toBe('2');
    const timedOut = answers.find((a) => a.statusCode === 200)!.json();
    expect(timedOut.problems.map((p: { code: string }) => p.code)).toEqual(['page_timeout']);
  }, 30_000);

  it('counts each answered check to the account as unfurl usage', async () => {
    await t.modules.usage.flush();
    const [today] = (await t.modules.accounts.accounts.usage(t.account.id, 1)).slice(-1);
    expect(today!.counts.unfurl).toBe(1);
  });
});
