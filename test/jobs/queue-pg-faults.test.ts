// @module-tag slow
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createJobQueue } from '../../src/jobs/queue/open.js';
import type { JobQueue } from '../../src/jobs/queue/types.js';
import { dropSchema, postgresTestUrl, uniqueSchema } from '../helpers/services.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { until } from '../helpers/wait.js';

// PostgreSQL "restarted" mid-work: every connection through the proxy is cut and new ones are
// refused for a while, as a restart looks to a client, without touching the server that other
// test runs share.
const url = await postgresTestUrl();

describe.skipIf(!url)('the pg-boss queue when PostgreSQL goes away mid-work', () => {
  const schema = uniqueSchema();
  let proxy: TcpProxy | undefined;
  let queue: JobQueue | undefined;
  afterAll(async () => {
    await queue?.close();
    await proxy?.close();
    await dropSchema(url!, schema);
    await dropSchema(url!, `${schema}_pgboss`);
  });

  it('rides out the outage: every task completes, none is lost or dead-lettered', async () => {
    const target = new URL(url!);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(url!);
    viaProxy.port = String(proxy.port);
    const errors: unknown[] = [];
    queue = await createJobQueue(
      { databaseUrl: viaProxy.toString(), dataDir: '/nonexistent', databaseSchema: schema },
      { pollMs: 200, superviseIntervalSeconds: 1, onError: (e) => errors.push(e) },
    );
    const name = `q_${randomBytes(4).toString('hex')}`;
    await queue.createQueue(name, {
      retryLimit: 0,
      retryDelayMs: 100,
      retryBackoff: false,
      expireMs: 10_000,
    });
    await queue.add(
      name,
      Array.from({ length: 300 }, (_, i) => ({ group: `acc_${i % 3}`, data: { i } })),
    );
    const done = new Set<number>();
    let runs = 0;
    await queue.work<{ i: number }>(name, { concurrency: 4, groupLimit: () => 4 }, async (t) => {
      runs++;
      await new Promise((r) => setTimeout(r, 10));
      done.add(t.data.i);
    });
    await until(() => done.size >= 60, 20_000);
    await proxy.stop();
    await new Promise((r) => setTimeout(r, 1500));
    expect(done.size).toBeLessThan(300);
    await proxy.start();
    await until(() => done.size === 300, 40_000);
    // Settled: nothing waits, runs or died (a run may have been repeated, never lost).
    for (let i = 0; i < 100; i++) {
      const counts = await Promise.all([0, 1, 2].map((g) => queue!.counts(name, `acc_${g}`)));
      if (counts.every((c) => c.waiting === 0 && c.running === 0)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const g of [0, 1, 2])
      expect(await queue.counts(name, `acc_${g}`)).toEqual({ waiting: 0, running: 0 });
    expect(await queue.deadLetters!(name)).toEqual([]);
    expect(runs).toBeGreaterThanOrEqual(300);
    // The outage was seen (and ridden out), not hidden.
    expect(errors.length).toBeGreaterThan(0);
  });
});
