/**
 * Rate limiting and authentication cost, against rate-limiter-flexible (the library the design
 * named) in the same run. Questions: (1) what does our sliding-window log cost per request
 * compared with the library's fixed-window counters, in memory and on the real Redis; (2) how
 * many requests does each admit across a window edge; (3) what does verifying a key or a
 * signed URL cost once cached. Not a test: CI does not run it; all traffic stays on loopback.
 *
 *   npm run bench:ratelimit [-- --no-docs]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { createAuthenticator } from '../src/auth/authenticate.js';
import { generateKey } from '../src/auth/keys.js';
import { loadPlans } from '../src/auth/plans.js';
import { deriveSecrets } from '../src/auth/secret.js';
import { signUrl } from '../src/auth/signing.js';
import { createMemoryLimiter } from '../src/ratelimit/memory.js';
import { createRedisLimiter } from '../src/ratelimit/redis.js';
import { TEMPLATE_NAMES } from '../src/render/template/registry.js';
import { loadConfig } from '../src/settings.js';
import type { Store } from '../src/storage/store.js';
import { machineFacts, markdownTable, type Table, textTable, writeSection } from './lib/report.js';
import { summarize } from './lib/stats.js';

const { values: args } = parseArgs({ options: { 'no-docs': { type: 'boolean', default: false } } });
const root = path.resolve(import.meta.dirname, '../..');
const REDIS_URL = loadConfig().redisUrl || 'redis://127.0.0.1:6379/15';
const say = (m: string) => process.stderr.write(`[bench] ${m}\n`);
const PREFIX = `cardshot-bench:${process.pid}:`;

/** Per-call µs of `fn`, in rounds so both contenders see the same noise; returns p50 per round. */
async function perCall(fn: (i: number) => Promise<unknown>, calls: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await fn(i);
  return Number(process.hrtime.bigint() - start) / 1000 / calls;
}

async function compare(
  ours: (i: number) => Promise<unknown>,
  theirs: (i: number) => Promise<unknown>,
  calls: number,
  rounds = 7,
) {
  const a: number[] = [];
  const b: number[] = [];
  await perCall(ours, calls / 4);
  await perCall(theirs, calls / 4);
  for (let r = 0; r < rounds; r++) {
    a.push(await perCall(ours, calls));
    b.push(await perCall(theirs, calls));
  }
  return { ours: summarize(a).p50, theirs: summarize(b).p50 };
}

/** Requests admitted by each limiter when 10/s is hit with 10 just before and 10 just after a window edge. */
async function edgeBurst() {
  const limit = 10;
  const flexible = new RateLimiterMemory({ points: limit, duration: 1 });
  const ours = createMemoryLimiter();
  const opened = Date.now();
  let flexibleAdmitted = 0;
  let oursAdmitted = 0;
  const burst = async () => {
    for (let i = 0; i < limit; i++) {
      if (
        await flexible.consume('edge').then(
          () => true,
          () => false,
        )
      )
        flexibleAdmitted++;
      if ((await ours.consume('edge', limit, 1000)).allowed) oursAdmitted++;
    }
  };
  // The library's window for a key opens at its first consume: one request now, then bursts
  // just before and just after that window's end.
  await flexible.consume('edge').then(() => flexibleAdmitted++);
  await ours.consume('edge', limit, 1000).then((d) => d.allowed && oursAdmitted++);
  await new Promise((r) => setTimeout(r, 950 - (Date.now() - opened)));
  await burst();
  await new Promise((r) => setTimeout(r, 1060 - (Date.now() - opened)));
  await burst();
  const span = Date.now() - opened;
  await ours.close();
  return { limit, flexibleAdmitted, oursAdmitted, span };
}

async function main() {
  say('memory limiters');
  const mem = createMemoryLimiter();
  const flex = new RateLimiterMemory({ points: 600, duration: 60 });
  const memory = await compare(
    (i) => mem.consume(`a${i % 100}`, 600, 60_000),
    (i) => flex.consume(`a${i % 100}`).catch(() => undefined),
    20_000,
  );
  await mem.close();

  say('Redis limiters (real Redis on loopback)');
  const client = new Redis(REDIS_URL);
  const redisOurs = createRedisLimiter({ url: REDIS_URL, prefix: PREFIX, timeoutMs: 1000 });
  await redisOurs.probe(2000);
  const redisFlex = new RateLimiterRedis({
    storeClient: client,
    points: 600,
    duration: 60,
    keyPrefix: `${PREFIX}flex`,
  });
  const redis = await compare(
    (i) => redisOurs.consume(`a${i % 100}`, 600, 60_000),
    (i) => redisFlex.consume(`a${i % 100}`).catch(() => undefined),
    2_000,
  );
  const keys = await client.keys(`${PREFIX}*`);
  if (keys.length) await client.del(...keys);
  await redisOurs.close();
  client.disconnect();

  say('window edge');
  const edge = await edgeBurst();

  say('authentication (verified-key cache warm)');
  const secrets = deriveSecrets('b'.repeat(40));
  const { key } = generateKey('production');
  const account = { id: 'acc_0000000000000001', name: 'B', email: 'b@x', plan: 'pro', createdAt: 0 };
  const record = {
    id: 'key_0000000000000001',
    accountId: account.id,
    name: 'k',
    environment: 'production',
    prefix: '',
    last4: '',
    hash: secrets.hashKey(key),
    createdAt: 0,
    lastUsedAt: null,
    expiresAt: null,
    revokedAt: null,
  };
  const store = {
    findKey: async () => ({ key: record, account }),
    touchKeys: async () => {},
  } as unknown as Store;
  const auth = createAuthenticator({
    store,
    secrets,
    plans: loadPlans(TEMPLATE_NAMES),
    log: pino({ level: 'silent' }),
    cacheMs: 60_000,
  });
  const signed = new URL(
    signUrl('/render/template?template=blog&title=Hello', {
      keyId: record.id,
      signingSecret: secrets.signingSecret(record.id),
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
    }),
    'http://x',
  );
  const query = Object.fromEntries(signed.searchParams);
  const authCost = await compare(
    () =>
      auth.authenticate({
        method: 'GET',
        path: '/render/template',
        headers: { 'x-api-key': key },
        query: {},
      }),
    () => auth.authenticate({ method: 'GET', path: signed.pathname, headers: {}, query: { ...query } }),
    20_000,
  );

  const rows: Table[] = [
    [
      [
        'per request (p50 of 7 rounds)',
        'Cardshot µs',
        'rate-limiter-flexible µs',
        'ratio Cardshot / library',
      ],
      [
        'memory, 600/min',
        memory.ours.toFixed(2),
        memory.theirs.toFixed(2),
        `${(memory.ours / memory.theirs).toFixed(2)}×`,
      ],
      [
        'Redis, 600/min (one round trip each)',
        redis.ours.toFixed(1),
        redis.theirs.toFixed(1),
        `${(redis.ours / redis.theirs).toFixed(2)}×`,
      ],
    ],
    [
      ['window edge: limit 10 per 1 s; 1 request at 0 s, 10 at ~0.95 s, 10 at ~1.06 s', 'admitted'],
      [`rate-limiter-flexible (fixed window), within ${edge.span} ms`, String(edge.flexibleAdmitted)],
      [`Cardshot (sliding window), within ${edge.span} ms`, String(edge.oursAdmitted)],
    ],
    [
      ['authentication, verified-key cache warm', 'µs per request'],
      ['x-api-key (checksum + HMAC + cache)', authCost.ours.toFixed(2)],
      ['signed URL (canonical request + 2 HMACs + cache)', authCost.theirs.toFixed(2)],
    ],
  ];
  for (const t of rows) process.stdout.write(`\n${textTable(t)}\n`);
  if (!args['no-docs']) {
    const md = `## Rate limiting and authentication (\`bench/ratelimit.ts\`)

Command: \`npm run bench:ratelimit\`. Run: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machineFacts()}.
Sequential calls in one process, 7 interleaved rounds per pair, p50 of the rounds; Redis is
the real server on loopback. The window-edge row uses real time (the library reads Date.now).

${rows.map(markdownTable).join('\n\n')}

What it shows: in memory the sliding-window log (a typed-array ring per account) is cheaper
than the library's fixed-window counters; on Redis it is one Lua script of five commands, so
a little dearer per call than the library's, still well under a millisecond on loopback; and
only the sliding window keeps the limit across a window edge.
`;
    writeSection(path.join(root, 'docs/benchmarks.md'), 'ratelimit', md);
    say('wrote docs/benchmarks.md');
  }
}

await main();
