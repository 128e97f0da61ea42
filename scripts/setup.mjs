#!/usr/bin/env node
// One idempotent set-up for `npm start`, `npm test` and `npx cardshot`: dependencies from the
// lockfile, the TypeScript build, the data directory. Each step is skipped when already done,
// so a second run costs well under a second. Plain JavaScript: it runs before anything is built.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const quiet = process.argv.includes('--quiet');
const say = (msg) => {
  if (!quiet) process.stderr.write(`[setup] ${msg}\n`);
};
const run = (cmd, args, env = {}) =>
  execFileSync(cmd, args, {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, ...env },
  });

function checkNode() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 20 || (major === 20 && minor < 19)) {
    throw new Error(`Node.js 20.19 or newer is required (this is ${process.versions.node})`);
  }
}

function ensureDependencies() {
  const lock = readFileSync(path.join(root, 'package-lock.json'));
  const hash = createHash('sha256').update(lock).digest('hex');
  const stamp = path.join(root, 'node_modules', '.cardshot-lock-hash');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) return;
  say('installing dependencies from package-lock.json (npm ci)…');
  // better-sqlite3 compiles its bundled SQLite with the machine's Node headers (about a minute,
  // once) rather than downloading a prebuilt binary at install time.
  run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
    npm_config_build_from_source: 'better-sqlite3',
  });
  writeFileSync(stamp, hash);
}

function newestMtime(dir) {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else if (/\.(ts|tsx|json)$/.test(entry.name)) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

function ensureBuild() {
  const stamp = path.join(root, 'dist', '.build-stamp');
  const inputs = Math.max(
    ...['src', 'bench', 'test/golden', 'test/helpers'].map((d) => newestMtime(path.join(root, d))),
    ...['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'].map(
      (f) => statSync(path.join(root, f)).mtimeMs,
    ),
  );
  if (existsSync(stamp) && statSync(stamp).mtimeMs >= inputs) return;
  say('building (tsc)…');
  run(process.execPath, [
    path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
    '-p',
    'tsconfig.build.json',
  ]);
  writeFileSync(stamp, new Date().toISOString());
}

function ensureDataDir() {
  const dir = path.resolve(root, process.env.CARDSHOT_DATA_DIR || 'data');
  mkdirSync(dir, { recursive: true });
}

try {
  checkNode();
  ensureDependencies();
  ensureBuild();
  ensureDataDir();
} catch (err) {
  process.stderr.write(`[setup] failed: ${err.message}\n`);
  process.exit(1);
}
