import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Redis } from 'ioredis';
import { loadPlans } from '../auth/plans.js';
import { deriveSecrets } from '../auth/secret.js';
import type { AuthConfig } from '../auth/settings.js';
import type { RedisConfig } from '../redis/settings.js';
import { templateNamesOnDisk } from '../render/template/files/area.js';
import type { TemplateConfig } from '../render/template/settings.js';
import { describeDatabase, inspectDatabase } from '../storage/open.js';
import type { StorageConfig } from '../storage/settings.js';
import { type Finding, firstLine, maskUrl } from './finding.js';

// Checks of what Cardshot keeps and talks to: plans, database, secret, Redis.

/** The plans file (when set) parses: a bad one stops the server at start. */
export function checkPlans(
  config: Pick<AuthConfig, 'plansFile'> &
    Pick<TemplateConfig, 'templatesDir'> &
    Pick<StorageConfig, 'dataDir'>,
): Finding {
  try {
    const plans = loadPlans(templateNamesOnDisk(config), config.plansFile);
    const names = [...plans.keys()].join(', ');
    return {
      name: 'plans',
      status: 'ok',
      detail: config.plansFile === '' ? `built-in plans (${names})` : `${config.plansFile}: ${names}`,
    };
  } catch (err) {
    return {
      name: 'plans',
      status: 'fail',
      detail: firstLine(err),
      fix: 'fix the file named in CARDSHOT_PLANS_FILE (docs/api.md#plans shows the format), or unset it',
    };
  }
}

/** The database answers and is migrated; the secret is usable and is the one the database knows. */
export async function checkDatabaseAndSecret(
  config: Pick<StorageConfig, 'databaseUrl' | 'dataDir' | 'databaseSchema'> & Pick<AuthConfig, 'secret'>,
): Promise<Finding[]> {
  const out: Finding[] = [];
  const where = describeDatabase(config);
  const shown = where.kind === 'postgres' ? maskUrl(where.location) : where.location;
  let fingerprint: string | undefined;
  try {
    const report = await inspectDatabase(config);
    fingerprint = report.secretFingerprint;
    if (!report.exists) {
      out.push({
        name: 'database',
        status: 'ok',
        detail: `SQLite at ${shown} does not exist yet; the first start creates it`,
      });
    } else if (report.unknown.length > 0) {
      out.push({
        name: 'database',
        status: 'fail',
        detail: `${shown} was migrated by a newer Cardshot (${report.unknown.join(', ')})`,
        fix: 'run the newer Cardshot, or restore a backup taken before the upgrade',
      });
    } else if (report.pending.length > 0) {
      out.push({
        name: 'database',
        status: 'warn',
        detail: `${where.kind} at ${shown} answers (${report.pingMs.toFixed(1)} ms); ${report.pending.length} migration(s) will run at the next start: ${report.pending.join(', ')}`,
        fix: 'nothing to do: the next start migrates (take a backup first if you like)',
      });
    } else {
      out.push({
        name: 'database',
        status: 'ok',
        detail: `${where.kind} at ${shown} answers in ${report.pingMs.toFixed(1)} ms; migrations are current`,
      });
    }
  } catch (err) {
    out.push({
      name: 'database',
      status: 'fail',
      detail: `cannot open ${shown}: ${firstLine(err)}`,
      fix:
        where.kind === 'postgres'
          ? 'check that PostgreSQL runs and DATABASE_URL (user, password, host, database) is right'
          : `check that ${path.dirname(where.location)} is writable`,
    });
  }
  out.push(await checkSecret(config, fingerprint));
  return out;
}

async function checkSecret(
  config: Pick<AuthConfig, 'secret'> & Pick<StorageConfig, 'dataDir'>,
  dbFingerprint: string | undefined,
): Promise<Finding> {
  const name = 'secret';
  let secret: string | undefined;
  let where: string;
  if (config.secret !== '') {
    where = 'CARDSHOT_SECRET';
    if (config.secret.length < 32) {
      return {
        name,
        status: 'fail',
        detail: 'CARDSHOT_SECRET is shorter than 32 characters',
        fix: 'set it to `openssl rand -base64 32`',
      };
    }
    secret = config.secret;
  } else {
    const file = path.join(config.dataDir, 'secret');
    where = file;
    if (!existsSync(file)) {
      return {
        name,
        status: dbFingerprint ? 'fail' : 'ok',
        detail: dbFingerprint
          ? `${file} is missing but the database was set up with a secret: no existing key will verify`
          : `${file} does not exist yet; the first start generates it`,
        ...(dbFingerprint
          ? { fix: 'restore the secret file from your backup, or set CARDSHOT_SECRET to the original value' }
          : {}),
      };
    }
    secret = (await readFile(file, 'utf8')).trim();
    const mode = (await stat(file)).mode & 0o777;
    if (mode & 0o077) {
      return {
        name,
        status: 'warn',
        detail: `${file} can be read by other users (mode ${mode.toString(8)})`,
        fix: `chmod 600 ${file}`,
      };
    }
  }
  if (dbFingerprint && deriveSecrets(secret).fingerprint !== dbFingerprint) {
    return {
      name,
      status: 'fail',
      detail: `the secret in ${where} is not the one this database was set up with: the server will refuse to start`,
      fix: 'give every node the same CARDSHOT_SECRET (or the same data dir secret file) as the first one',
    };
  }
  return { name, status: 'ok', detail: `from ${where}${dbFingerprint ? ', matches the database' : ''}` };
}

/** When REDIS_URL is set: Redis answers PING, and how fast. */
export async function checkRedis(config: Pick<RedisConfig, 'redisUrl'>): Promise<Finding> {
  if (config.redisUrl === '') {
    return {
      name: 'redis',
      status: 'skip',
      detail: 'REDIS_URL is not set: rate limits are kept per process',
    };
  }
  const shown = maskUrl(config.redisUrl);
  const client = new Redis(config.redisUrl, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    const started = performance.now();
    await client.ping();
    const ms = performance.now() - started;
    return {
      name: 'redis',
      status: ms > 20 ? 'warn' : 'ok',
      detail: `${shown} answers PING in ${ms.toFixed(1)} ms`,
      ...(ms > 20
        ? {
            fix: 'Redis is slow from here: put it close to the nodes (CARDSHOT_REDIS_TIMEOUT_MS bounds the wait)',
          }
        : {}),
    };
  } catch (err) {
    return {
      name: 'redis',
      status: 'fail',
      detail: `cannot reach ${shown}: ${firstLine(err)}; rate limits fall back to per-process ones`,
      fix: 'start Redis, or fix REDIS_URL (redis://host:6379/0), or unset it for one node',
    };
  } finally {
    client.disconnect();
  }
}
