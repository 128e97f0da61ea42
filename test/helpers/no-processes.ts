import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { DECODE_CHILD_MARKER } from '../../src/render/image/decode-child.js';

/**
 * `npm run test:unit` loads this before every file: a test there may start no process at all
 * (Chromium, the built server, the CLI, nginx, a helper binary, a child node). Starting one
 * throws, naming the tag that moves the test to `npm test` only, so the tags cannot drift from
 * what the tests do.
 */
const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

/**
 * esbuild, the template loader's compiler, runs as one long-lived service process per worker:
 * loading a template file is a unit of work here like parsing JSON, so that one binary may start.
 */
const ESBUILD = /[\\/]@esbuild[\\/][^\\/]+[\\/]bin[\\/]esbuild$/;

/**
 * The image decode pool's children (src/render/image/decode-pool.ts): the service decodes every
 * user's image in one, so preparing artwork or a logo is a unit of work here like esbuild's.
 */
const isDecodeChild = (command: unknown, args: unknown) =>
  command === process.execPath &&
  Array.isArray(args) &&
  args[0] === '-e' &&
  typeof args[1] === 'string' &&
  args[1].startsWith(DECODE_CHILD_MARKER);

const starters = childProcess as unknown as Record<
  (typeof STARTERS)[number],
  (...args: unknown[]) => unknown
>;
const originals = Object.fromEntries(STARTERS.map((name) => [name, starters[name]])) as typeof starters;

const refuse =
  (name: (typeof STARTERS)[number]) =>
  (command: unknown, ...rest: unknown[]): unknown => {
    if (typeof command === 'string' && ESBUILD.test(command)) return originals[name](command, ...rest);
    if (name === 'spawn' && isDecodeChild(command, rest[0])) return originals[name](command, ...rest);
    throw new Error(
      `test:unit starts no process, and this test called ${name}(${JSON.stringify(String(command))}): ` +
        'tag it (or its file, `// @module-tag chromium`) `chromium` or `process`, see test/README.md',
    );
  };

for (const name of STARTERS) starters[name] = refuse(name);
// Files that imported { spawn } from 'node:child_process' see the refusal too.
syncBuiltinESMExports();
