import { randomBytes } from 'node:crypto';
import { Socket } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';

/**
 * The machine's real PostgreSQL and Redis, from DATABASE_TEST_URL and REDIS_TEST_URL. In CI
 * (CI=true) an unreachable service fails the suite; elsewhere the suite is skipped with a message.
 */
const inCI = process.env.CI === 'true';

async function reachable(url: string, defaultPort: number): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const s = new Socket();
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(1000, () => done(false));
    s.once('error', () => done(false));
    s.connect(Number(u.port || defaultPort), u.hostname, () => done(true));
  });
}

async function service(
  name: string,
  env: string,
  fallback: string,
  port: number,
): Promise<string | undefined> {
  const url = process.env[env] || fallback;
  if (await reachable(url, port)) return url;
  const msg = `${name} is not reachable at ${url} (set ${env})`;
  if (inCI) throw new Error(`${msg}: CI needs it`);
  process.stderr.write(`skipping ${name} tests: ${msg}\n`);
  return undefined;
}

/** DATABASE_TEST_URL when PostgreSQL answers; undefined (skip) outside CI when it does not. */
export function postgresTestUrl(): Promise<string | undefined> {
  return service('PostgreSQL', 'DATABASE_TEST_URL', 'postgres://postgres@127.0.0.1:5432/test', 5432);
}

/** REDIS_TEST_URL when Redis answers; undefined (skip) outside CI when it does not. */
export function redisTestUrl(): Promise<string | undefined> {
  return service('Redis', 'REDIS_TEST_URL', 'redis://127.0.0.1:6379/15', 6379);
}

/** A schema name no other test run uses. */
export function uniqueSchema(): string {
  return `cardshot_test_${randomBytes(6).toString('hex')}`;
}

const prefixes = new Set<string>();

/** A Redis key prefix no other test run uses (remembered for `deleteRedisPrefixes`). */
export function uniqueRedisPrefix(): string {
  const prefix = `cardshot-test:${randomBytes(6).toString('hex')}:`;
  prefixes.add(prefix);
  return prefix;
}

/** Deletes every key under the prefixes this test file handed out. */
export async function deleteRedisPrefixes(url: string): Promise<void> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    for (const prefix of prefixes) {
      let cursor = '0';
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        if (keys.length) await client.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    }
    prefixes.clear();
  } finally {
    client.disconnect();
  }
}

/** Drops a test schema and everything in it. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
