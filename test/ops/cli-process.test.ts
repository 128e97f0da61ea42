// @module-tag chromium
// @module-tag process
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFlag, SHOT_OPTIONS } from '../../src/render/screenshot/option-table.js';
import { chromiumAvailable } from '../helpers/browser.js';
import {
  cleanEnv,
  runNode,
  serveUntilStarted as serveServer,
  startNodeProcess,
} from '../helpers/node-process.js';
import { startPageServer } from '../helpers/pages.js';
import { pngSize } from '../helpers/png.js';

// These run the built program as `npx cardshot` and `npm start` do (npm test builds first).
const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/src/cli/index.js');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-ops-proc-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (args: string[], opts: { cwd: string; env?: Record<string, string> }) =>
  runNode([cli, ...args], { cwd: opts.cwd, env: cleanEnv(opts.env ?? {}) });

describe('cardshot/client', () => {
  it('is importable by its package name, with type declarations, in plain Node', async () => {
    expect(existsSync(path.join(root, 'dist/src/client/index.d.ts'))).toBe(true);
    const res = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          "import { Cardshot, CardshotError } from 'cardshot/client'; const c = new Cardshot({ baseUrl: 'http://127.0.0.1:1/' }); console.log(c.baseUrl, typeof CardshotError);",
        ],
        { cwd: root },
      );
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
      });
      child.stderr.on('data', (d) => {
        out += d;
      });
      child.on('close', (code) => resolve({ code, out }));
    });
    expect(res.out.trim()).toBe('http://127.0.0.1:1 function');
    expect(res.code).toBe(0);
  });
});

describe('npx cardshot config', () => {
  it('prints every setting with its source, secrets masked', async () => {
    const cwd = path.join(dir, 'config');
    await mkdir(cwd, { recursive: true });
    await writeFile(path.join(cwd, 'cardshot.config.json'), JSON.stringify({ port: 4000, logLevel: 'warn' }));
    const secret = 'a-very-long-server-secret-for-the-config-test-0000';
    const env = {
      CARDSHOT_SECRET: secret,
      CARDSHOT_LOG_LEVEL: 'debug',
      DATABASE_URL: 'postgres://cards:hunter2@db.internal:5432/cards',
      CARDSHOT_METRICS_TOKEN: 'metrics-token-0123456789abcdef',
    };
    const json = await run(['config', '--json'], { cwd, env });
    expect(json.code, json.stderr).toBe(0);
    const parsed = JSON.parse(json.stdout) as {
      file: string;
      settings: Array<{ key: string; env: string; value: unknown; source: string; secret: boolean }>;
    };
    expect(parsed.file).toBe('cardshot.config.json');
    const by = Object.fromEntries(parsed.settings.map((s) => [s.key, s]));
    expect(by.port).toMatchObject({ env: 'PORT', value: 4000, source: 'file' });
    // The environment wins over the file.
    expect(by.logLevel).toMatchObject({ value: 'debug', source: 'env' });
    expect(by.host).toMatchObject({ value: '127.0.0.1', source: 'default' });
    expect(by.secret).toMatchObject({
      value: `(set, ${secret.length} characters)`,
      source: 'env',
      secret: true,
    });
    expect(by.metricsToken).toMatchObject({ value: '(set, 30 characters)', secret: true });
    expect(by.databaseUrl!.value).toBe('postgres://cards:****@db.internal:5432/cards');
    expect(json.stdout).not.toContain('hunter2');
    expect(json.stdout).not.toContain(secret);
    expect(json.stdout).not.toContain('metrics-token-0123456789abcdef');

    const text = await run(['config'], { cwd, env });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^PORT +4000 +file \(port\)$/m);
    expect(text.stdout).toMatch(/^CARDSHOT_LOG_LEVEL +debug +env$/m);
    expect(text.stdout).toMatch(
      new RegExp(`^CARDSHOT_SECRET +\\(set, ${secret.length} characters\\) +env$`, 'm'),
    );
    expect(text.stdout).not.toContain('hunter2');
  });

  it('stops with the variable named when a value is wrong (exit 78)', async () => {
    const res = await run(['config'], { cwd: dir, env: { CARDSHOT_METRICS_TOKEN: 'short' } });
    expect(res.code).toBe(78);
    expect(res.stderr).toContain(
      'CARDSHOT_METRICS_TOKEN must be at least 16 characters (openssl rand -hex 32 makes one)',
    );
  });
});

describe('npx cardshot doctor', () => {
  it.skipIf(!chromiumAvailable())(
    'passes on a healthy set-up, and sees the database and secret once the server has used them',
    async () => {
      const cwd = path.join(dir, 'healthy');
      await mkdir(cwd, { recursive: true });
      const fresh = await run(['doctor'], { cwd });
      expect(fresh.code, fresh.stdout + fresh.stderr).toBe(0);
      expect(fresh.stdout).toMatch(/^✓ chromium: Chromium \d+/m);
      expect(fresh.stdout).toMatch(/^✓ template fonts: \d+ font files registered and a test card rendered/m);
      // A fresh directory: the data dir is checked where it would be made, and not made (doctor
      // run in another project used to leave an empty ./data behind).
      expect(fresh.stdout).toMatch(/^✓ data dir: .*\/data can be made \(.*healthy is writable\); .* free$/m);
      expect(existsSync(path.join(cwd, 'data'))).toBe(false);
      expect(fresh.stdout).toContain('does not exist yet; the first start creates it');
      expect(fresh.stdout).toMatch(/^✓ url guard: refuses loopback, private and metadata addresses$/m);
      expect(fresh.stdout).toMatch(/^✓ plans: built-in plans \(free, pro\)$/m);
      expect(fresh.stdout).toContain('All checks passed');

      // In a data dir named explicitly, the CLI creates and migrates the database (as a start
      // would; the default ./data it only uses once a server has) …
      await mkdir(path.join(cwd, 'data'), { recursive: true });
      expect((await run(['accounts', 'list'], { cwd, env: { CARDSHOT_DATA_DIR: 'data' } })).code).toBe(0);
      const used = await run(['doctor', '--json'], { cwd });
      expect(used.code).toBe(0);
      const findings = JSON.parse(used.stdout).findings as Array<{
        name: string;
        status: string;
        detail: string;
      }>;
      const f = Object.fromEntries(findings.map((x) => [x.name, x]));
      expect(f.database).toMatchObject({ status: 'ok' });
      expect(f.database!.detail).toMatch(/^sqlite at .* answers in [\d.]+ ms; migrations are current$/);
      expect(f.secret).toMatchObject({ status: 'ok', detail: 'from data/secret, matches the database' });
      // … and a node with another secret is caught before it refuses to start.
      const other = await run(['doctor'], {
        cwd,
        env: { CARDSHOT_SECRET: 'another-secret-that-is-long-enough-000000000' },
      });
      expect(other.code).toBe(1);
      expect(other.stdout).toContain(
        '✗ secret: the secret in CARDSHOT_SECRET is not the one this database was set up with',
      );
      expect(other.stdout).toContain('fix: give every node the same CARDSHOT_SECRET');
    },
    120_000,
  );

  it('fails with a fix for each broken part, and exits 1', async () => {
    const cwd = path.join(dir, 'broken');
    await mkdir(cwd, { recursive: true });
    const notADir = path.join(cwd, 'data-file');
    await writeFile(notADir, 'not a directory');
    const res = await run(['doctor'], {
      cwd,
      env: {
        CARDSHOT_CHROMIUM_PATH: path.join(cwd, 'no-chromium'),
        CARDSHOT_DATA_DIR: notADir,
        CARDSHOT_ALLOW_PRIVATE_HOSTS: '169.254.169.254:80,127.0.0.1:6379',
        REDIS_URL: 'redis://127.0.0.1:1/0',
        CARDSHOT_PLANS_FILE: path.join(cwd, 'no-plans.json'),
      },
    });
    expect(res.code, res.stderr).toBe(1);
    const out = res.stdout;
    expect(out).toContain(
      `✗ chromium: no executable at ${path.join(cwd, 'no-chromium')}; GET /render/url answers 503`,
    );
    expect(out).toMatch(/fix: run `npm start` as root on Debian/);
    expect(out).toContain(`✗ data dir: ${notADir} is not writable`);
    expect(out).toContain('✗ redis: cannot reach redis://127.0.0.1:1/0');
    expect(out).toContain(`✗ plans: CARDSHOT_PLANS_FILE: cannot read ${path.join(cwd, 'no-plans.json')}`);
    expect(out).toContain(
      '✗ url guard: CARDSHOT_ALLOW_PRIVATE_HOSTS opens 169.254.169.254:80, 127.0.0.1:6379 (metadata, internal services or Cardshot itself); lets http://169.254.169.254/latest/meta-data/ through',
    );
    expect(out).toContain('fix: remove those entries from CARDSHOT_ALLOW_PRIVATE_HOSTS');
    expect(out).toMatch(/\d+ check\(s\) failed/);
    // Every failure says how to fix it.
    const lines = out.split('\n');
    lines.forEach((line, i) => {
      if (line.startsWith('✗')) expect(lines[i + 1], line).toMatch(/^ {4}fix: /);
    });
  });
});

describe('npx cardshot <command> <subcommand> --help', () => {
  // `accounts create --help` used to exit 2 with "Unknown option '--help'" before the usage.
  it('shows the command help and exits 0 for a subcommand, as for the command', async () => {
    for (const args of [
      ['accounts', 'create'],
      ['keys', 'create'],
      ['theme', 'show'],
    ]) {
      const whole = await run([args[0]!, '--help'], { cwd: dir });
      const sub = await run([...args, '--help'], { cwd: dir });
      expect(sub.code, args.join(' ')).toBe(0);
      expect(sub.stderr, args.join(' ')).toBe('');
      expect(sub.stdout).toBe(whole.stdout);
    }
  });
});

describe('npx cardshot shot', () => {
  it('lists every flag with an example in --help, and is listed by `cardshot --help`', async () => {
    const help = await run(['shot', '--help'], { cwd: dir });
    expect(help.code).toBe(0);
    const flags = [
      '--viewport',
      '--wait-until',
      '--full-page',
      '--selector',
      '--wait-for-selector',
      '--delay',
      '--dark-mode',
      '--hide',
      '--block-ads',
      '--block-cookie-banners',
      '--scale',
      '--format',
      '--quality',
      '--ttl',
      '--fresh',
      '--batch',
      '--concurrency',
      '--server',
      '--api-key',
      // Every option of the table (issue 29's among them), and --pdf.
      ...SHOT_OPTIONS.map((o) => `--${cliFlag(o)}`),
      '--pdf',
    ];
    for (const flag of flags) {
      // The flag's own line ends with an example that uses it.
      const line = help.stdout.split('\n').find((l) => l.trimStart().startsWith(flag));
      expect(line, flag).toMatch(new RegExp(`\\s{2,}${flag}( .+)?$`));
    }
    expect(help.stdout).toMatch(/^ {2}-o, --output FILE .* -o page\.webp$/m);
    const top = await run(['--help'], { cwd: dir });
    expect(top.stdout).toContain('  shot <url> [--full-page --selector … --format webp …] -o page.webp');
  });

  it.skipIf(!chromiumAvailable())(
    'finds the server of this data dir and reads the key from CARDSHOT_KEY',
    async () => {
      const pages = await startPageServer();
      const node = await startNodeProcess(root, 'shot', { CARDSHOT_ALLOW_PRIVATE_HOSTS: pages.hostPort });
      try {
        const env = { CARDSHOT_DATA_DIR: node.dataDir };
        const made = await run(
          ['accounts', 'create', '--name', 'S', '--email', 's@shot.test', '--plan', 'pro', '--json'],
          {
            cwd: node.dataDir,
            env,
          },
        );
        const account = JSON.parse(made.stdout).id as string;
        const created = await run(
          ['keys', 'create', '--account', account, '--name', 'cli', '--environment', 'test', '--json'],
          { cwd: node.dataDir, env },
        );
        const key = JSON.parse(created.stdout).key as string;
        // No --server: CARDSHOT_PUBLIC_URL is unset, so the address this data dir's server recorded.
        const res = await run(['shot', `${pages.url}/split`, '-o', 'split.png'], {
          cwd: node.dataDir,
          env: { ...env, CARDSHOT_KEY: key },
        });
        expect(res.code, res.stderr).toBe(0);
        expect(res.stdout).toMatch(/^split\.png: 1200×630 PNG, [\d.]+ KB in [\d.]+ s \(MISS\)\n$/);
        expect(pngSize(await readFile(path.join(node.dataDir, 'split.png')))).toEqual({
          width: 1200,
          height: 630,
        });
      } finally {
        await node.stop();
        await pages.close();
      }
    },
    120_000,
  );
});

describe('logs', () => {
  const hasScript = existsSync('/usr/bin/script');

  async function serveUntilStarted(env: Record<string, string>, viaTerminal: boolean): Promise<string> {
    const cwd = path.join(dir, `logs-${viaTerminal ? 'tty' : 'pipe'}-${env.NODE_ENV ?? 'dev'}`);
    await mkdir(cwd, { recursive: true });
    const fullEnv = cleanEnv({
      PORT: '0',
      CARDSHOT_DATA_DIR: path.join(cwd, 'data'),
      CARDSHOT_FIRST_RUN_KEY: 'false',
      CARDSHOT_CHROMIUM_PATH: path.join(cwd, 'no-chromium'),
      ...env,
    });
    return serveServer(root, { cwd, env: fullEnv, viaTerminal });
  }

  it.skipIf(!hasScript)(
    'are readable coloured lines in a terminal, JSON in production, pretty without colour when forced in a pipe',
    async () => {
      const tty = await serveUntilStarted({}, true);
      const line = tty.split('\n').find((l) => l.includes('Cardshot is serving'))!;
      expect(line.trimStart().startsWith('{')).toBe(false);
      expect(line).toMatch(
        /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] .*INFO.*: .*Cardshot is serving on http:\/\/127\.0\.0\.1:\d+/,
      );
      expect(line).toContain('\u001b['); // colour

      const prodTty = await serveUntilStarted({ NODE_ENV: 'production' }, true);
      const json = prodTty.split(/\r?\n/).find((l) => l.includes('Cardshot is serving'))!;
      expect(JSON.parse(json)).toMatchObject({
        level: 30,
        service: 'cardshot',
        msg: expect.stringMatching(/^Cardshot is serving/),
      });

      // (Piped output is JSON by default: the server process tests read it that way.)
      const forced = await serveUntilStarted({ CARDSHOT_LOG_FORMAT: 'pretty' }, false);
      expect(forced).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: Cardshot is serving/m);
    },
    120_000,
  );
});
