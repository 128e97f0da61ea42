import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type DataDirQuestion, locateDataDir } from '../../src/cli/data-dir.js';
import { cleanEnv, runNode } from '../helpers/node-process.js';

// `npx cardshot <admin command>` run outside the server's directory must find the server's data
// dir or refuse, naming where it looked: never make a new ./data with a new secret there.

const repo = path.resolve(import.meta.dirname, '../..');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'cardshot-data-dir-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A fresh folder under the test's temporary dir. */
function folder(name: string): string {
  const dir = path.join(tmp, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

describe('locateDataDir', () => {
  const install = folder('install');
  const ask = (q: Partial<DataDirQuestion>) =>
    locateDataDir({
      dataDir: './data',
      source: 'default',
      configFile: null,
      needed: true,
      cwd: folder('elsewhere'),
      packageRoot: install,
      ...q,
    });

  it('refuses the default ./data outside a server directory when the installation has none either', () => {
    const cwd = folder('empty-project');
    expect(() => ask({ cwd })).toThrow(
      `no Cardshot data directory at ${cwd}/data (nor at ${install}/data); run this in the server's directory, or set CARDSHOT_DATA_DIR to its data directory (\`npm start\` creates it on the first start)`,
    );
    // An unrelated ./data (a project's own) is not taken for Cardshot's.
    const withData = folder('project-with-data');
    mkdirSync(path.join(withData, 'data'));
    expect(() => ask({ cwd: withData })).toThrow(/^no Cardshot data directory at /);
  });

  it('uses ./data when a server used it, in a directory with a config file, or in the installation', () => {
    const served = folder('served');
    mkdirSync(path.join(served, 'data'));
    writeFileSync(path.join(served, 'data', 'cardshot.sqlite'), '');
    expect(ask({ cwd: served })).toEqual({ dataDir: './data' });
    expect(ask({ cwd: folder('configured'), configFile: 'cardshot.config.json' })).toEqual({
      dataDir: './data',
    });
    expect(ask({ cwd: install })).toEqual({ dataDir: './data' });
  });

  it('falls back to the installation’s data dir when a server used it, and says so', () => {
    const root = folder('install-used');
    mkdirSync(path.join(root, 'data'));
    writeFileSync(path.join(root, 'data', 'secret'), 'x'.repeat(43));
    const cwd = folder('another-project');
    expect(ask({ cwd, packageRoot: root })).toEqual({
      dataDir: path.join(root, 'data'),
      note: `no Cardshot data in ${cwd}/data; using the server's, ${root}/data`,
    });
  });

  it('an explicit CARDSHOT_DATA_DIR is used when it exists and refused when it does not', () => {
    const given = folder('given');
    expect(ask({ dataDir: given, source: 'env' })).toEqual({ dataDir: given });
    const typo = path.join(tmp, 'givne');
    expect(() => ask({ dataDir: typo, source: 'env' })).toThrow(
      `CARDSHOT_DATA_DIR: no directory at ${typo}; give the server's data directory (the server creates it on its first start)`,
    );
  });

  it('asks nothing of the disk when CARDSHOT_SECRET and DATABASE_URL keep nothing there', () => {
    expect(ask({ needed: false, dataDir: '/nowhere' })).toEqual({ dataDir: '/nowhere' });
  });
});

describe('the built CLI from another directory', { tags: ['process'] }, () => {
  // A second installation of the built CLI (symlinks to this one's files but data/, run with
  // --preserve-symlinks so it sees itself there), whose data/ the test controls.
  const install = folder('cli-install');
  copyFileSync(path.join(repo, 'package.json'), path.join(install, 'package.json'));
  for (const entry of readdirSync(repo)) {
    if (!['data', 'package.json', '.git'].includes(entry))
      symlinkSync(path.join(repo, entry), path.join(install, entry));
  }
  const cli = path.join(install, 'dist/src/cli/index.js');
  const project = folder('cli-project');
  const run = (args: string[], cwd: string, env: Record<string, string> = {}) =>
    runNode(['--preserve-symlinks', '--preserve-symlinks-main', cli, ...args], { cwd, env: cleanEnv(env) });

  it('refuses, then finds the server’s data dir once there is one, never creating ./data', async () => {
    const refused = await run(['keys', 'list', '--account', 'ops@acme.test'], project);
    expect(refused).toEqual({
      code: 78,
      stdout: '',
      stderr: `cardshot keys list: configuration error: no Cardshot data directory at ${project}/data (nor at ${install}/data); run this in the server's directory, or set CARDSHOT_DATA_DIR to its data directory (\`npm start\` creates it on the first start)\n`,
    });
    expect(readdirSync(project)).toEqual([]);
    expect(existsSync(path.join(install, 'data'))).toBe(false);
    // templates new and doctor made ./data (or ./data/templates) in any directory they ran in.
    const starter = await run(['templates', 'new', 'event'], project);
    expect(starter.code).toBe(78);
    expect(starter.stderr).toContain(`no Cardshot data directory at ${project}/data`);
    await run(['doctor', '--json'], project);
    expect(readdirSync(project)).toEqual([]);
    expect(existsSync(path.join(install, 'data'))).toBe(false);

    // In the installation itself, the CLI sets up its data dir, as `npm start` there would.
    const made = await run(
      ['accounts', 'create', '--name', 'Acme', '--email', 'ops@acme.test', '--plan', 'pro', '--json'],
      install,
    );
    expect(made.code, made.stderr).toBe(0);
    expect(existsSync(path.join(install, 'data', 'secret'))).toBe(true);

    const found = await run(['accounts', 'list', '--json'], project);
    expect(found.code, found.stderr).toBe(0);
    expect(found.stderr).toBe(
      `cardshot: no Cardshot data in ${project}/data; using the server's, ${install}/data\n`,
    );
    expect(JSON.parse(found.stdout).accounts.map((a: { email: string }) => a.email)).toEqual([
      'ops@acme.test',
    ]);
    expect(readdirSync(project)).toEqual([]);
    const written = await run(['templates', 'new', 'event'], project);
    expect(written.code, written.stderr).toBe(0);
    expect(existsSync(path.join(install, 'data', 'templates', 'event.tsx'))).toBe(true);
    expect(readdirSync(project)).toEqual([]);

    // A data dir named by mistake is refused, not made.
    const typo = path.join(project, 'dta');
    const named = await run(['usage', '--account', 'ops@acme.test'], project, { CARDSHOT_DATA_DIR: typo });
    expect(named.code).toBe(78);
    expect(named.stderr).toBe(
      `cardshot usage: configuration error: CARDSHOT_DATA_DIR: no directory at ${typo}; give the server's data directory (the server creates it on its first start)\n`,
    );
    expect(readdirSync(project)).toEqual([]);
  }, 60_000);
});
