// @module-tag process
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// deploy/Dockerfile runs deploy/verify-install.mjs after `npm ci` and `npm prune`: npm 10.8.2
// exited 0 after a failed install ("Exit handler never called!"), and the image build must stop
// there instead of going on (it used to fail two steps later, or not at all).
const script = path.resolve('deploy/verify-install.mjs');
const run = (cwd: string, ...args: string[]) =>
  spawnSync(process.execPath, [script, ...args], { cwd, encoding: 'utf8', timeout: 60_000 });

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-verify-install-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('deploy/verify-install.mjs', () => {
  it('passes on the repository, whose node_modules npm ci made', () => {
    const r = run(process.cwd());
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('fails when npm left packages out, naming them', async () => {
    // The lockfile's shape: one production package present, one dev package missing, another
    // platform's optional binary absent (allowed), and no better-sqlite3 to load.
    const lock = {
      lockfileVersion: 3,
      packages: {
        '': { name: 'x' },
        'node_modules/present': { version: '1.0.0' },
        'node_modules/devtool': { version: '1.0.0', dev: true },
        'node_modules/other-platform': { version: '1.0.0', optional: true },
      },
    };
    await writeFile(path.join(dir, 'package-lock.json'), JSON.stringify(lock));
    await writeFile(path.join(dir, 'package.json'), '{"name":"x"}');
    await mkdir(path.join(dir, 'node_modules/present'), { recursive: true });
    await writeFile(path.join(dir, 'node_modules/present/package.json'), '{}');

    const all = run(dir);
    expect(all.status).toBe(1);
    expect(all.stderr).toContain('npm left node_modules incomplete: 2 missing');
    expect(all.stderr).toContain('node_modules/devtool');
    expect(all.stderr).toContain(
      "node_modules/better-sqlite3 (does not load: Cannot find module 'better-sqlite3'",
    );
    expect(all.stderr).not.toContain('other-platform');

    // After npm prune --omit=dev only production packages count; better-sqlite3 still must load.
    const prod = run(dir, '--omit=dev');
    expect(prod.status).toBe(1);
    expect(prod.stderr).toContain('1 missing, for example node_modules/better-sqlite3 (does not load:');

    // A better-sqlite3 whose binary cannot open a database (built for another Node, or a Node
    // without Node-API 10) is as bad as none.
    const pkg = path.join(dir, 'node_modules/better-sqlite3');
    await mkdir(pkg, { recursive: true });
    await writeFile(path.join(pkg, 'package.json'), '{"name":"better-sqlite3","main":"index.js"}');
    await writeFile(
      path.join(pkg, 'index.js'),
      "module.exports = class { constructor() { throw new Error('Module did not self-register'); } };",
    );
    expect(run(dir, '--omit=dev').stderr).toContain(
      'node_modules/better-sqlite3 (does not load: Module did not self-register)',
    );
    await writeFile(path.join(pkg, 'index.js'), 'module.exports = class { close() {} };');
    expect(run(dir, '--omit=dev').status).toBe(0);
    expect(run(dir).status).toBe(1);
  });

  it('is what deploy/Dockerfile runs after npm ci and after npm prune', async () => {
    const dockerfile = await readFile('deploy/Dockerfile', 'utf8');
    expect(dockerfile).toMatch(/npm ci [^\n]*\\\n && node deploy\/verify-install\.mjs\n/);
    expect(dockerfile).toMatch(
      /npm prune --omit=dev [^\n]*\\\n && node deploy\/verify-install\.mjs --omit=dev\n/,
    );
  });
});
