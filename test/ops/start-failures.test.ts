// @module-tag process
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runNode, serveUntilStarted } from '../helpers/node-process.js';
import { postgresTestUrl } from '../helpers/services.js';

// The built program, as `npm start` runs it (npm test builds first). Each start here fails
// before or at listen, so none of them keeps running.
const root = path.resolve(import.meta.dirname, '../..');
const main = path.join(root, 'dist/src/main.js');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-start-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Starts the server with only `env` set (on a fresh data dir unless given), to its exit. */
function start(env: Record<string, string>) {
  return runNode([main], {
    cwd: dir,
    env: cleanEnv({
      PORT: '0',
      HOST: '127.0.0.1',
      CARDSHOT_DATA_DIR: path.join(dir, `data-${Math.random().toString(36).slice(2)}`),
      CARDSHOT_CHROMIUM_PATH: path.join(dir, 'no-chromium'),
      ...env,
    }),
  });
}

describe('a start that cannot go on says why in one line, naming the setting, with no stack', async () => {
  const pgUrl = await postgresTestUrl();

  it('an unreachable database: DATABASE_URL and the cause, exit 69 (EX_UNAVAILABLE: a retry may work)', async () => {
    const refused = await start({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test' });
    expect(refused.stderr).toBe(
      'cardshot: cannot start: DATABASE_URL: could not connect to 127.0.0.1:1 (connection refused)\n',
    );
    expect(refused.code).toBe(69);
    // The CLI says the same and exits the same way.
    const cli = await runNode([path.join(root, 'bin/cardshot.js'), 'accounts', 'list'], {
      cwd: dir,
      // With CARDSHOT_SECRET the CLI needs no data dir (it refuses to make one outside a server's).
      env: cleanEnv({
        DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test',
        CARDSHOT_SECRET: 'x'.repeat(40),
      }),
    });
    expect(cli.stderr).toBe(
      'cardshot accounts list: DATABASE_URL: could not connect to 127.0.0.1:1 (connection refused)\n',
    );
    expect(cli.code).toBe(69);

    const unknownHost = await start({ DATABASE_URL: 'postgres://postgres@nowhere.invalid/test' });
    expect(unknownHost.stderr).toBe(
      'cardshot: cannot start: DATABASE_URL: could not connect to nowhere.invalid:5432 (host not found)\n',
    );
    expect(unknownHost.code).toBe(69);
  });

  it.skipIf(!pgUrl)(
    'a database the server refuses, or a URL pg cannot read: DATABASE_URL, exit 78 (EX_CONFIG), no password shown',
    async () => {
      const missing = new URL(pgUrl!);
      missing.pathname = '/cardshot_no_such_database';
      const r = await start({ DATABASE_URL: missing.toString() });
      expect(r.stderr).toBe(
        `cardshot: configuration error: DATABASE_URL: ${missing.hostname}:${missing.port || 5432} refused the connection: database "cardshot_no_such_database" does not exist\n`,
      );
      expect(r.code).toBe(78);

      const bad = await start({ DATABASE_URL: 'postgres://app:hunter2@db:notaport/cards' });
      expect(bad.stderr).toBe(
        'cardshot: configuration error: DATABASE_URL is not a valid URL (postgres://user:password@host:5432/database)\n',
      );
      expect(bad.code).toBe(78);
    },
  );

  it('a data dir that is a file: CARDSHOT_DATA_DIR and the file in the way, exit 78', async () => {
    const file = path.join(dir, 'a-file');
    await writeFile(file, 'not a directory');
    // The generated secret is read first …
    const r = await start({ CARDSHOT_DATA_DIR: file });
    expect(r.stderr).toBe(
      `cardshot: configuration error: CARDSHOT_DATA_DIR: ${file} is a file, not a directory\n`,
    );
    expect(r.code).toBe(78);
    // … and with CARDSHOT_SECRET set, the SQLite file is the first thing made there.
    const withSecret = await start({ CARDSHOT_DATA_DIR: file, CARDSHOT_SECRET: 's'.repeat(40) });
    expect(withSecret.stderr).toBe(
      `cardshot: configuration error: CARDSHOT_DATA_DIR: cannot open the SQLite database: ${file} is a file, not a directory\n`,
    );
    expect(withSecret.code).toBe(78);
  });

  it('a HOST that is no address of this machine: HOST, exit 78', async () => {
    const r = await start({ HOST: '999.1.1.1' });
    expect(r.stderr).toBe(
      'cardshot: configuration error: HOST: cannot listen on 999.1.1.1: not an IP address, nor a name this machine resolves\n',
    );
    expect(r.code).toBe(78);
  });
});

describe('unknown CARDSHOT_* environment variables', () => {
  it('are named in one warning at start, with the setting a typo probably meant, and the start goes on', async () => {
    const cwd = path.join(dir, 'typo');
    const out = await serveUntilStarted(root, {
      cwd: dir,
      viaTerminal: false,
      env: cleanEnv({
        PORT: '0',
        HOST: '127.0.0.1',
        NODE_ENV: 'production',
        CARDSHOT_DATA_DIR: path.join(cwd, 'data'),
        CARDSHOT_CHROMIUM_PATH: path.join(cwd, 'no-chromium'),
        CARDSHOT_SCREENSHOT_CONCURENCY: '4',
        CARDSHOT_WIDGET_MODE: 'on', // another program's: nothing near it
        CARDSHOT_KEY: 'cs_live_x', // the README's own, for curl: never warned about
      }),
    });
    const warnings = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string; unknown?: string[] })
      .filter((l) => l.level === 40 && l.unknown);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.msg).toBe(
      'ignoring unknown environment variables CARDSHOT_SCREENSHOT_CONCURENCY (did you mean CARDSHOT_SCREENSHOT_CONCURRENCY?), CARDSHOT_WIDGET_MODE',
    );
    expect(out).toContain('Cardshot is serving on http://127.0.0.1:');
  });

  it('are reported by `cardshot doctor` as a warning, not a failure', async () => {
    const cwd = path.join(dir, 'doctor');
    const r = await runNode([path.join(root, 'bin/cardshot.js'), 'doctor', '--json'], {
      cwd: dir,
      env: cleanEnv({
        CARDSHOT_DATA_DIR: path.join(cwd, 'data'),
        CARDSHOT_CHROMIUM_PATH: path.join(cwd, 'no-chromium'),
        CARDSHOT_SECERT: 'x',
      }),
    });
    const findings = JSON.parse(r.stdout).findings as Array<{ name: string; status: string; detail: string }>;
    expect(findings.find((f) => f.name === 'environment')).toEqual({
      name: 'environment',
      status: 'warn',
      detail: 'ignoring unknown environment variable CARDSHOT_SECERT (did you mean CARDSHOT_SECRET?)',
      fix: 'correct the name (npx cardshot config lists every setting), or ignore this if another program reads it',
    });
  }, 60_000);
});
