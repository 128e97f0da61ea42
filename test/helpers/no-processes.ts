import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

/**
 * `npm run test:unit` loads this before every file: a test there may start no process at all
 * (Chromium, the built server, the CLI, nginx, a helper binary, a child node). Starting one
 * throws, naming the tag that moves the test to `npm test` only, so the tags cannot drift from
 * what the tests do.
 */
const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

const refuse =
  (name: string) =>
  (command: unknown): never => {
    throw new Error(
      `test:unit starts no process, and this test called ${name}(${JSON.stringify(String(command))}): ` +
        'tag it (or its file, `// @module-tag chromium`) `chromium` or `process`, see test/README.md',
    );
  };

/**
 * esbuild's own service: the template loader compiles every template file with it (the built-ins
 * too), as the server does. One long-lived helper per worker, started by the loader rather than by
 * a test, so it is not a process the tags are about.
 */
const ESBUILD = /[\\/]@esbuild[\\/][^\\/]+[\\/]bin[\\/]esbuild(\.exe)?$|[\\/]esbuild[\\/]bin[\\/]esbuild$/;

const starters = childProcess as unknown as Record<(typeof STARTERS)[number], unknown>;
for (const name of STARTERS) {
  const original = starters[name] as (command: unknown, ...rest: unknown[]) => unknown;
  const refusal = refuse(name);
  starters[name] = (command: unknown, ...rest: unknown[]) =>
    name === 'spawn' && typeof command === 'string' && ESBUILD.test(command)
      ? original(command, ...rest)
      : refusal(command);
}
// Files that imported { spawn } from 'node:child_process' see the refusal too.
syncBuiltinESMExports();
