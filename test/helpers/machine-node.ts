import path from 'node:path';

/**
 * The machine's own Node as a user's shell finds it (PATH without node_modules/.bin and its link
 * to the chosen Node), and whether it is older than package.json's engines, so the set-up runs
 * Cardshot on the pinned Node of .node-version instead.
 */
const root = path.resolve(import.meta.dirname, '../..');
const runtime = await import(path.join(root, 'scripts/node-runtime.mjs'));

export const userPath = (process.env.PATH ?? '')
  .split(path.delimiter)
  .filter((d) => !d.endsWith(`node_modules${path.sep}.bin`) && !d.includes(`${path.sep}.runtime${path.sep}`))
  .join(path.delimiter);
export const machine: { path: string; version: string } | undefined = runtime.machineNode(root, userPath);
export const machineIsOld: boolean =
  !machine || !runtime.satisfies(machine.version, runtime.minimumVersion(root));
export const pinnedVersion: (root: string) => string = runtime.pinnedVersion;
export const minimumVersion: (root: string) => string = runtime.minimumVersion;
export const satisfies: (version: string, minimum: string) => boolean = runtime.satisfies;
