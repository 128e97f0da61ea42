import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat, statfs, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { chromium } from 'playwright-core';
import { loadPlans } from '../auth/plans.js';
import { deriveSecrets } from '../auth/secret.js';
import type { Config } from '../config/schema.js';
import { createUrlGuard, UrlRefusedError } from '../net/url-guard.js';
import { CHROMIUM_FLAGS } from '../render/screenshot/browser.js';
import { listFontFiles } from '../render/template/fonts.js';
import { createTemplateRenderer } from '../render/template/renderer.js';
import { describeDatabase, inspectDatabase } from '../storage/open.js';

/** One finding of `npx cardshot doctor`. */
export interface Finding {
  name: string;
  /** ok; warn: works, but worth fixing; fail: something users will see break. */
  status: 'ok' | 'warn' | 'fail' | 'skip';
  detail: string;
  /** How to fix it (warn and fail only). */
  fix?: string;
}

/**
 * Debian's fonts that screenshots of real pages need (the same list `npm start` installs):
 * without them a page shows boxes where a visitor's browser shows text.
 */
export const SYSTEM_FONTS = [
  ['fonts-liberation', '/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf'],
  ['fonts-noto-core', '/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf'],
  ['fonts-noto-cjk', '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc'],
  ['fonts-noto-color-emoji', '/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf'],
] as const;

/** Services an allow-list entry must never open up: the cloud metadata endpoint and internal daemons. */
const METADATA_HOSTS = new Set([
  '169.254.169.254',
  'metadata.google.internal',
  '[fd00:ec2::254]',
  '100.100.100.200',
]);
const INTERNAL_PORTS = new Set([22, 23, 25, 2375, 2379, 3306, 5432, 6379, 9200, 11211, 27017]);

const run = promisify(execFile);
const MiB = 1024 * 1024;

/** Runs every check; each one reports instead of throwing. */
export async function runDoctor(config: Config): Promise<Finding[]> {
  const checks: Array<() => Promise<Finding | Finding[]>> = [
    () => checkChromium(config),
    () => checkTemplateFonts(),
    async () => checkSystemFonts(),
    () => checkDataDir(config),
    async () => checkPlans(config),
    () => checkDatabaseAndSecret(config),
    () => checkRedis(config),
    () => checkUrlGuard(config),
    async () => checkExposure(config),
  ];
  const findings: Finding[] = [];
  for (const check of checks) {
    try {
      const out = await check();
      findings.push(...(Array.isArray(out) ? out : [out]));
    } catch (err) {
      findings.push({ name: 'doctor', status: 'fail', detail: `a check crashed: ${(err as Error).message}` });
    }
  }
  return findings;
}

/** Found, which version, and starts headless with the flags the service uses. */
export async function checkChromium(config: Pick<Config, 'chromiumPath'>): Promise<Finding> {
  const name = 'chromium';
  const exe = config.chromiumPath;
  const install =
    'run `npm start` as root on Debian (it installs the chromium package), or `apt-get install -y chromium`, or set CARDSHOT_CHROMIUM_PATH to a Chromium';
  if (!existsSync(exe)) {
    return {
      name,
      status: 'fail',
      detail: `no executable at ${exe}; GET /render/url answers 503`,
      fix: install,
    };
  }
  let version = '';
  try {
    version = (await run(exe, ['--version'], { timeout: 15_000 })).stdout.trim();
  } catch (err) {
    return { name, status: 'fail', detail: `${exe} --version failed: ${firstLine(err)}`, fix: install };
  }
  const started = performance.now();
  try {
    const browser = await chromium.launch({
      executablePath: exe,
      headless: true,
      args: CHROMIUM_FLAGS,
      timeout: 30_000,
    });
    try {
      const page = await browser.newPage();
      await page.setContent('<p>doctor</p>');
      await page.screenshot({ type: 'png' });
    } finally {
      await browser.close();
    }
  } catch (err) {
    return {
      name,
      status: 'fail',
      detail: `${version} is installed but did not start headless: ${firstLine(err)}`,
      fix: 'run the printed command by hand to see why; a container may need `--init` and enough /dev/shm, and the service must not run Chromium from a read-only home',
    };
  }
  return {
    name,
    status: 'ok',
    detail: `${version} at ${exe}; started headless with the service's flags and took a screenshot in ${Math.round(performance.now() - started)} ms`,
  };
}

/** Every bundled template font is present and the renderer draws a card with them. */
export async function checkTemplateFonts(): Promise<Finding> {
  const name = 'template fonts';
  const fix = 'run `npm ci` (the @fontsource packages are missing or damaged)';
  const files = listFontFiles();
  const missing = files.filter((f) => !existsSync(f.path));
  if (missing.length > 0) {
    return {
      name,
      status: 'fail',
      detail: `${missing.length} of ${files.length} font files missing, e.g. ${missing[0]!.path}`,
      fix,
    };
  }
  const started = performance.now();
  try {
    const renderer = await createTemplateRenderer();
    const { png } = await renderer.render('blog', { title: 'Doctor: 你好, مرحبا, 🚀' });
    await renderer.close();
    return {
      name,
      status: 'ok',
      detail: `${files.length} font files registered and a test card rendered (${png.length} bytes) in ${Math.round(performance.now() - started)} ms`,
    };
  } catch (err) {
    return { name, status: 'fail', detail: `the renderer failed: ${firstLine(err)}`, fix };
  }
}

/** The Debian fonts pages expect are installed. */
export function checkSystemFonts(): Finding {
  const missing = SYSTEM_FONTS.filter(([, file]) => !existsSync(file)).map(([pkg]) => pkg);
  if (missing.length === 0) {
    return { name: 'screenshot fonts', status: 'ok', detail: SYSTEM_FONTS.map(([pkg]) => pkg).join(', ') };
  }
  return {
    name: 'screenshot fonts',
    status: 'warn',
    detail: `missing ${missing.join(', ')}: screenshots show boxes for those scripts or emoji`,
    fix: `apt-get install -y --no-install-recommends ${missing.join(' ')} (npm start does this on Debian as root)`,
  };
}

/** The data dir exists (or can be made), is writable, and has room for the disk cache. */
export async function checkDataDir(config: Pick<Config, 'dataDir' | 'cacheDiskBytes'>): Promise<Finding> {
  const name = 'data dir';
  const dir = path.resolve(config.dataDir);
  const fix = `make ${dir} a directory the service's user can write (CARDSHOT_DATA_DIR), on a persistent volume`;
  try {
    await mkdir(dir, { recursive: true });
    const probe = path.join(dir, `.doctor-${randomBytes(4).toString('hex')}`);
    await writeFile(probe, 'ok');
    await unlink(probe);
  } catch (err) {
    return { name, status: 'fail', detail: `${dir} is not writable: ${firstLine(err)}`, fix };
  }
  const fs = await statfs(dir);
  const free = fs.bavail * fs.bsize;
  const needed = config.cacheDiskBytes + 256 * MiB;
  const detail = `${dir} is writable; ${formatMiB(free)} free`;
  if (free < needed) {
    return {
      name,
      status: 'warn',
      detail: `${detail}, less than the disk cache budget (${formatMiB(config.cacheDiskBytes)}) plus 256 MiB for the database`,
      fix: 'free some space, or lower CARDSHOT_CACHE_DISK_BYTES',
    };
  }
  return { name, status: 'ok', detail };
}

/** The plans file (when set) parses: a bad one stops the server at start. */
export function checkPlans(config: Pick<Config, 'plansFile'>): Finding {
  try {
    const plans = loadPlans(config.plansFile);
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
  config: Pick<Config, 'databaseUrl' | 'dataDir' | 'databaseSchema' | 'secret'>,
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
  config: Pick<Config, 'secret' | 'dataDir'>,
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
export async function checkRedis(config: Pick<Config, 'redisUrl'>): Promise<Finding> {
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

/** The guard refuses loopback and the metadata endpoint, and the allow-list opens nothing dangerous. */
export async function checkUrlGuard(
  config: Pick<Config, 'allowPrivateHosts' | 'port' | 'nodeEnv'>,
): Promise<Finding> {
  const name = 'url guard';
  const guard = createUrlGuard({ allowPrivateHosts: config.allowPrivateHosts });
  const mustRefuse = [
    `http://127.0.0.1:${config.port}/`,
    'http://127.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/',
    'http://10.0.0.1/',
  ];
  const letThrough: string[] = [];
  for (const url of mustRefuse) {
    try {
      await guard.check(url);
      letThrough.push(url);
    } catch (err) {
      if (!(err instanceof UrlRefusedError)) throw err;
    }
  }
  const dangerous = config.allowPrivateHosts.filter((entry) => {
    const m = /^(.*):(\d+)$/.exec(entry);
    const host = (m?.[1] ?? entry).toLowerCase();
    const port = Number(m?.[2] ?? 0);
    return (
      METADATA_HOSTS.has(host) ||
      host === '0.0.0.0' ||
      host === '[::]' ||
      INTERNAL_PORTS.has(port) ||
      port === config.port
    );
  });
  const fix =
    'remove those entries from CARDSHOT_ALLOW_PRIVATE_HOSTS: anyone with a key could make Cardshot fetch from them';
  if (dangerous.length > 0 || letThrough.length > 0) {
    return {
      name,
      status: 'fail',
      detail: [
        dangerous.length
          ? `CARDSHOT_ALLOW_PRIVATE_HOSTS opens ${dangerous.join(', ')} (metadata, internal services or Cardshot itself)`
          : '',
        letThrough.length ? `lets ${letThrough.join(', ')} through` : '',
      ]
        .filter(Boolean)
        .join('; '),
      fix,
    };
  }
  if (config.allowPrivateHosts.length > 0 && config.nodeEnv === 'production') {
    return {
      name,
      status: 'warn',
      detail: `refuses loopback, private and metadata addresses, but CARDSHOT_ALLOW_PRIVATE_HOSTS lets ${config.allowPrivateHosts.join(', ')} through in production`,
      fix: 'keep the allow-list for development and tests; serve images from public addresses in production',
    };
  }
  return {
    name,
    status: 'ok',
    detail: `refuses loopback, private and metadata addresses${config.allowPrivateHosts.length ? ` (allowed on purpose: ${config.allowPrivateHosts.join(', ')})` : ''}`,
  };
}

/** What is exposed to whoever reaches the port. */
function checkExposure(config: Pick<Config, 'host' | 'metricsToken' | 'nodeEnv' | 'publicUrl'>): Finding {
  const open = config.host === '0.0.0.0' || config.host === '::';
  const notes = [
    config.metricsToken === ''
      ? '/metrics is off (no CARDSHOT_METRICS_TOKEN)'
      : '/metrics needs the bearer token',
    open ? `listening on all interfaces (${config.host})` : `listening on ${config.host} only`,
  ];
  if (config.nodeEnv === 'production' && open && config.publicUrl === '') {
    return {
      name: 'exposure',
      status: 'warn',
      detail: `${notes.join('; ')}; CARDSHOT_PUBLIC_URL is empty`,
      fix: 'set CARDSHOT_PUBLIC_URL to the https address users reach (invite links, Secure cookies) and terminate TLS in front',
    };
  }
  return { name: 'exposure', status: 'ok', detail: notes.join('; ') };
}

/** `postgres://user:pass@host/db` → `postgres://user:****@host/db`. */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '****';
    return u.toString();
  } catch {
    return '(not a URL)';
  }
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 300);
}

function formatMiB(bytes: number): string {
  return bytes >= 1024 * MiB ? `${(bytes / (1024 * MiB)).toFixed(1)} GiB` : `${Math.round(bytes / MiB)} MiB`;
}
