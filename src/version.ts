import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The package root: the nearest folder above this file with a package.json (src/ or dist/src/). */
export function packageRoot(): string {
  let dir = import.meta.dirname;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('cannot find the package root');
    dir = up;
  }
  return dir;
}

/** The version in package.json (metrics, the OpenAPI document). */
export const CARDSHOT_VERSION: string = (
  JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string }
).version;

/**
 * Why this Node cannot run Cardshot (older than package.json's `engines.node`), or undefined.
 * node_modules' native modules are built for the Node the set-up chose, so an older one (the
 * machine's Node 20 running `node dist/src/main.js` by hand) would otherwise fail later with a
 * NODE_MODULE_VERSION error that names the wrong cause.
 */
export function unsupportedNode(version: string = process.versions.node): string | undefined {
  const pkg = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as {
    engines?: { node?: string };
  };
  const m = /^>=\s*(\d+)(?:\.(\d+))?/.exec(pkg.engines?.node ?? '');
  if (!m) return undefined;
  const [major, minor] = [Number(m[1]), Number(m[2] ?? 0)];
  const [a, b] = version.split('.').map(Number) as [number, number];
  if (a > major || (a === major && b >= minor)) return undefined;
  return `Node.js ${major}.${minor} or newer is required (this is ${version}); \`npm start\` and \`npx cardshot\` run on the Node their set-up chose, node_modules/.bin/node`;
}
