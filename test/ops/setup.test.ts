// @module-tag process
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, runNode } from '../helpers/node-process.js';

// scripts/setup.mjs, which `npm start` runs first, on a scratch copy of the project: its stamps
// must never mark a partial install or a failed build as done, or every later start fails too.
const root = path.resolve(import.meta.dirname, '../..');
const LOCK_STAMP = 'node_modules/.cardshot-lock-hash';
const BUILD_STAMP = 'dist/.build-stamp';
let scratch: string | undefined;

afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/** A project with the real package.json, lockfile, tsconfigs and set-up, and `main` as its only source. */
async function project(main: string): Promise<string> {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'cardshot-setup-'));
  for (const f of [
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'tsconfig.build.json',
    'scripts/setup.mjs',
    'scripts/node-runtime.mjs',
    '.node-version',
  ]) {
    await mkdir(path.dirname(path.join(scratch, f)), { recursive: true });
    await copyFile(path.join(root, f), path.join(scratch, f));
  }
  await mkdir(path.join(scratch, 'src'));
  await writeFile(path.join(scratch, 'src/main.ts'), main);
  return scratch;
}

/**
 * The set-up on a machine whose Node is this test's (new enough for engines: nothing to fetch),
 * after `bin` (a stand-in npm).
 */
const setup = (dir: string, bin: string) =>
  runNode([path.join(dir, 'scripts/setup.mjs')], {
    cwd: dir,
    env: cleanEnv({
      NODE_ENV: 'production',
      CARDSHOT_DATA_DIR: path.join(dir, 'data'),
      PATH: [bin, path.dirname(process.execPath), process.env.PATH].join(path.delimiter),
    }),
  });

describe('set-up stamps (npm start)', () => {
  it('an npm ci that exits 0 without installing everything is not marked done, and is run with dev dependencies', async () => {
    const dir = await project('export {};\n');
    // npm 10 printed "Exit handler never called!" and exited 0 after failed registry fetches;
    // under NODE_ENV=production a plain `npm ci` leaves devDependencies (TypeScript) out. This
    // npm does both: it installs one package and says it succeeded.
    const bin = path.join(dir, 'fake-bin');
    await mkdir(bin);
    await writeFile(
      path.join(bin, 'npm'),
      `#!/bin/sh\necho "$*" >> "${dir}/npm-calls"\nmkdir -p node_modules/fastify\necho '{}' > node_modules/fastify/package.json\necho "npm error Exit handler never called!" >&2\nexit 0\n`,
      { mode: 0o755 },
    );
    for (const attempt of [1, 2]) {
      const res = await setup(dir, bin);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(
        /\[setup\] failed: npm ci did not install everything \(missing node_modules\/@[\w-]+\/[\w-]+\/package\.json/,
      );
      expect(existsSync(path.join(dir, LOCK_STAMP))).toBe(false);
      expect(existsSync(path.join(dir, BUILD_STAMP))).toBe(false);
      // The second start tries the install again instead of trusting a stamp.
      const calls = (await readFile(path.join(dir, 'npm-calls'), 'utf8')).trim().split('\n');
      expect(calls).toHaveLength(attempt);
      expect(calls[attempt - 1]).toMatch(/^ci --include=dev /);
    }
  });

  it('a failed build leaves no build stamp; the next start builds again', async () => {
    const dir = await project('const n: number = "not a number";\nexport default n;\n');
    // The real dependencies, already installed: only the build is under test.
    await symlink(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    // If set-up ever took them for incomplete, it must not reinstall this worktree's packages.
    const bin = path.join(dir, 'fake-bin');
    await mkdir(bin);
    await writeFile(path.join(bin, 'npm'), '#!/bin/sh\necho "npm must not run here" >&2\nexit 1\n', {
      mode: 0o755,
    });
    const setupHere = () => setup(dir, bin);
    const failed = await setupHere();
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('[setup] failed: the TypeScript build failed (tsc exit 2)');
    expect(existsSync(path.join(dir, BUILD_STAMP))).toBe(false);
    const again = await setupHere();
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('building (tsc)');

    await writeFile(path.join(dir, 'src/main.ts'), 'const n: number = 1;\nexport default n;\n');
    const fixed = await setupHere();
    expect(fixed.stderr).toContain('building (tsc)');
    expect(fixed.code).toBe(0);
    expect(existsSync(path.join(dir, BUILD_STAMP))).toBe(true);
    expect(existsSync(path.join(dir, 'dist/src/main.js'))).toBe(true);
    const done = await setupHere();
    expect(done.code).toBe(0);
    expect(done.stderr).not.toContain('building');
  }, 120_000);
});
