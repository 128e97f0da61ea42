// Fails (exit 1) when node_modules does not hold what package-lock.json says it should.
// deploy/Dockerfile runs it after `npm ci` and after `npm prune`: npm can exit 0 after a failed
// install (npm 10.8.2 printed "Exit handler never called!" and exited 0 when every registry fetch
// failed), and the build must stop there rather than two steps later, or not at all.
//   node deploy/verify-install.mjs            every package the lockfile installs
//   node deploy/verify-install.mjs --omit=dev only the production ones (after npm prune --omit=dev)
// Optional packages (other platforms' binaries) may be absent. better-sqlite3's native module
// must be there: it is compiled during `npm ci`.
import { existsSync, readFileSync } from 'node:fs';

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
const native = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
if (!existsSync(native)) missing.push(native);
if (missing.length > 0) {
  console.error(
    `npm left node_modules incomplete: ${missing.length} missing, for example ${missing.slice(0, 5).join(', ')}`,
  );
  process.exit(1);
}
console.log(`node_modules complete (${omitDev ? 'production' : 'all'} packages of package-lock.json)`);
