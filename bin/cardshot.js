#!/usr/bin/env node
// `npx cardshot …`: runs the set-up first when the project has not been built yet, then the CLI
// on the Node the set-up chose (node_modules/.bin/node: the machine's when it satisfies
// `engines`, else the pinned one in .runtime/). Started by an older Node (`node bin/cardshot.js`
// with the machine's Node 20), it runs the CLI again under that one: node_modules' native
// modules are built for it alone.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entry = path.join(root, 'dist', 'src', 'cli', 'index.js');
const setup = spawnSync(process.execPath, [path.join(root, 'scripts', 'setup.mjs'), '--quiet'], {
  stdio: 'inherit',
});
if (setup.status !== 0) process.exit(setup.status ?? 1);
if (!existsSync(entry)) {
  process.stderr.write('cardshot: the build is missing; run `npm run setup`\n');
  process.exit(1);
}

const link = path.join(root, 'node_modules', '.bin', 'node');
let chosen;
try {
  chosen = realpathSync(link);
} catch {
  chosen = undefined; // no link (a set-up from before it made one): this Node it is
}
if (chosen && chosen !== realpathSync(process.execPath)) {
  const child = spawn(chosen, [...process.execArgv, entry, ...process.argv.slice(2)], { stdio: 'inherit' });
  // The CLI decides what a signal means; this process only waits. Ctrl-C and a hang-up reach the
  // whole foreground group, the CLI included, so they are not passed on twice; SIGTERM is sent
  // to one process, this one, and is.
  process.on('SIGINT', () => {});
  process.on('SIGHUP', () => {});
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  child.on('exit', (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else process.exit(code ?? 1);
  });
} else {
  await import(pathToFileURL(entry).href);
}
