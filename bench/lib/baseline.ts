import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Another commit of Cardshot, built beside this one, for benchmarks that compare "today" with a
 * change in one run: `git archive <ref>` into a temporary directory, this checkout's
 * node_modules linked in (the older build needs nothing newer), compiled with its own tsconfig.
 * A build already there for the same commit is reused. Returns the entry point and the commit.
 */
export function buildBaseline(root: string, ref: string): { entry: string; commit: string } {
  const commit = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], {
    cwd: root,
    encoding: 'utf8',
  }).trim();
  const dir = path.join(os.tmpdir(), `cardshot-baseline-${commit.slice(0, 12)}`);
  const entry = path.join(dir, 'dist', 'src', 'main.js');
  if (existsSync(entry)) return { entry, commit };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const archive = execFileSync('git', ['archive', '--format=tar', commit], {
    cwd: root,
    maxBuffer: 512 * 1024 * 1024,
  });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  execFileSync(
    process.execPath,
    [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: dir,
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  return { entry, commit };
}
