#!/usr/bin/env node
// `npx cardshot …`: runs the set-up first when the project has not been built yet.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
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
await import(pathToFileURL(entry).href);
