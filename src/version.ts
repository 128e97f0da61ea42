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
