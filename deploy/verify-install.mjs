// Fails (exit 1) when node_modules does not hold what package-lock.json says it should.
// deploy/Dockerfile runs it after `npm ci` and after `npm prune`: npm can exit 0 after a failed
// install (npm 10.8.2 printed "Exit handler never called!" and exited 0 when every registry fetch
// failed), and the build must stop there rather than two steps later, or not at all.
//   node deploy/verify-install.mjs            every package the lockfile installs
//   node deploy/verify-install.mjs --omit=dev only the production ones (after npm prune --omit=dev)
// Optional packages (other platforms' binaries) may be absent. better-sqlite3 must load: its
// Node-API binary for this platform comes in its npm package (or from a source build where the
// package has none), and a Node too old for it (Node-API 10: Node 22.14) fails here, not at start.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const omitDev = process.argv.includes('--omit=dev');
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const missing = [];
for (const [path, meta] of Object.entries(lock.packages ?? {})) {
  if (path === '' || !path.includes('node_modules/')) continue;
  if (meta.optional || meta.devOptional) continue;
  if (omitDev && meta.dev) continue;
  if (meta.link) continue;
  if (!existsSync(`${path}/package.json`)) missing.push(path);
}
try {
  const Database = createRequire(path.resolve('package.json'))('better-sqlite3');
  new Database(':memory:').close();
} catch (err) {
  missing.push(`node_modules/better-sqlite3 (does not load: ${String(err.message).split('\n')[0]})`);
}
if (missing.length > 0) {
  console.error(
    `npm left node_modules incomplete: ${missing.length} missing, for example ${missing.slice(0, 5).join(', ')}`,
  );
  process.exit(1);
}
console.log(`node_modules complete (${omitDev ? 'production' : 'all'} packages of package-lock.json)`);
