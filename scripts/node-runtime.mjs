// Which Node.js runs Cardshot, and bringing the pinned one into the project when the machine's is
// too old. Used by scripts/setup.mjs, which may itself be running on that old Node (Debian 12's
// or an end-of-life Node 20): plain JavaScript, nothing newer than Node 18 offers.
//
// The rule: the machine's Node (the first `node` on PATH outside any node_modules/.bin) when it
// satisfies package.json's `engines.node`; otherwise the version in .node-version, taken from the
// npm registry's `node-<platform>-<arch>` package (the official binary and its headers) into
// .runtime/. Either way node_modules/.bin/node links to the chosen Node: npm puts that folder
// first on PATH for every script, so `node`, vitest, tsc and npm itself run on it, and a
// systemd unit can name one stable path.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  accessSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';

/** The link every npm script's `node` resolves to (npm puts node_modules/.bin first on PATH). */
export const nodeLink = (root) => path.join(root, 'node_modules', '.bin', 'node');

/** The pinned version, from .node-version (also read by scripts/image.sh for the image). */
export function pinnedVersion(root) {
  const v = readFileSync(path.join(root, '.node-version'), 'utf8').trim().replace(/^v/, '');
  if (!/^\d+\.\d+\.\d+$/.test(v)) throw new Error(`.node-version must hold one exact version (found "${v}")`);
  return v;
}

/** [major, minor] that package.json's `engines.node` (">=22.14") asks for. */
export function minimumVersion(root) {
  const range = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).engines?.node ?? '';
  const m = /^>=\s*(\d+)(?:\.(\d+))?/.exec(range);
  if (!m) throw new Error(`package.json engines.node must be ">=X.Y" (found "${range}")`);
  return [Number(m[1]), Number(m[2] ?? 0)];
}

/** Whether version "a.b.c" is at least [major, minor]. */
export function satisfies(version, [major, minor]) {
  const [a, b] = version.split('.').map(Number);
  return a > major || (a === major && b >= minor);
}

const isExecutable = (file) => {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
};

/** `node --version` of a binary, without the "v"; undefined when it does not run. */
function versionOf(file) {
  try {
    if (realpathSync(file) === realpathSync(process.execPath)) return process.versions.node;
  } catch {
    return undefined;
  }
  const res = spawnSync(file, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  const m = /^v(\d+\.\d+\.\d+)/.exec(res.stdout ?? '');
  return m ? m[1] : undefined;
}

/**
 * The Node a user of this machine gets by typing `node`: the first on PATH, skipping
 * node_modules/.bin folders (npm's own additions, where our link lives) and this project's
 * .runtime. Undefined when there is none.
 */
export function machineNode(root, envPath = process.env.PATH ?? '') {
  const runtime = path.join(root, '.runtime') + path.sep;
  for (const dir of envPath.split(path.delimiter)) {
    if (dir === '' || !path.isAbsolute(dir)) continue;
    if (path.basename(dir) === '.bin' && path.basename(path.dirname(dir)) === 'node_modules') continue;
    if ((dir + path.sep).startsWith(runtime)) continue;
    const file = path.join(dir, 'node');
    if (!isExecutable(file)) continue;
    const version = versionOf(file);
    if (version) return { path: file, version };
  }
  return undefined;
}

/** The pinned Node's folder in .runtime (its bin/node and include/node, as the package ships them). */
export const pinnedDir = (root, version) =>
  path.join(root, '.runtime', `node-v${version}-${process.platform}-${process.arch}`);

/** Partial downloads of set-ups that are no longer running (a pid that has gone). */
function removeStalePartials(runtime) {
  for (const name of existsSync(runtime) ? readdirSync(runtime) : []) {
    const m = /^\.partial-(\d+)-/.exec(name);
    if (!m) continue;
    let alive = true;
    try {
      process.kill(Number(m[1]), 0);
    } catch (err) {
      alive = err.code === 'EPERM';
    }
    if (!alive || Number(m[1]) === process.pid)
      rmSync(path.join(runtime, name), { recursive: true, force: true });
  }
}

/**
 * The pinned Node, fetched once: `npm pack` of `node-<platform>-<arch>@<version>` (npm's own
 * registry, proxy and CA settings apply), its sha512 compared with the integrity the registry's
 * metadata states, unpacked and run once (`--version` must name the pinned version) in a
 * .partial- folder, and only then renamed into place. An interrupted or failed fetch leaves no
 * folder under the final name, so it is never taken for done.
 */
export function ensurePinnedNode(root, version, say) {
  const dir = pinnedDir(root, version);
  const bin = path.join(dir, 'bin', 'node');
  if (existsSync(bin)) return bin;
  const runtime = path.join(root, '.runtime');
  mkdirSync(runtime, { recursive: true });
  removeStalePartials(runtime);
  const spec = `node-${process.platform}-${process.arch}@${version}`;
  say(`fetching Node.js ${version} from the npm registry (${spec}, about 50 MB, once)…`);
  const work = mkdtempSync(path.join(runtime, `.partial-${process.pid}-`));
  try {
    // npm's own registry, proxy and CA settings apply; its complaint (EINTEGRITY, E404, a
    // network error) ends up in the set-up's one failure line.
    const npm = (args, what) => {
      try {
        return execFileSync('npm', args, { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      } catch (err) {
        const lines = String(err.stderr ?? '')
          .split('\n')
          .filter((l) => /^npm (error|ERR!)/.test(l));
        const why = lines
          .map((l) => l.replace(/^npm (error|ERR!) ?/, ''))
          .filter(Boolean)
          .slice(0, 2)
          .join(' ');
        throw new Error(`${what} failed (${why || err.message.split('\n')[0]})`);
      }
    };
    const meta = JSON.parse(
      npm(['view', spec, 'dist', '--json'], `reading ${spec}'s metadata from the npm registry`),
    );
    const claimed = meta?.integrity;
    if (typeof claimed !== 'string' || !claimed.startsWith('sha512-')) {
      throw new Error(`the npm registry states no sha512 integrity for ${spec}`);
    }
    const packed = JSON.parse(npm(['pack', spec, '--json'], `downloading ${spec} from the npm registry`));
    const tarball = path.join(work, packed[0].filename);
    const actual = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    if (actual !== claimed) {
      throw new Error(`${spec} does not match the registry's integrity (expected ${claimed}, got ${actual})`);
    }
    const unpacked = path.join(work, 'x');
    mkdirSync(unpacked);
    execFileSync('tar', ['-xzf', tarball, '-C', unpacked, '--no-same-owner']);
    rmSync(tarball);
    const got = spawnSync(path.join(unpacked, 'package', 'bin', 'node'), ['--version'], { encoding: 'utf8' });
    if (got.stdout?.trim() !== `v${version}`) {
      throw new Error(
        `the Node.js from ${spec} does not run here (${got.error?.message ?? got.stderr?.trim() ?? got.stdout})`,
      );
    }
    try {
      renameSync(path.join(unpacked, 'package'), dir);
    } catch (err) {
      // Another set-up (an `npx cardshot` beside `npm start`) got there first: its copy is whole.
      if (!existsSync(bin)) throw err;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return bin;
}

/** Older pinned Nodes in .runtime (after a change of .node-version), each ~190 MB unpacked. */
export function removeOtherPinned(root, keepDir) {
  const runtime = path.join(root, '.runtime');
  for (const name of existsSync(runtime) ? readdirSync(runtime) : []) {
    if (/^node-v/.test(name) && path.join(runtime, name) !== keepDir) {
      rmSync(path.join(runtime, name), { recursive: true, force: true });
    }
  }
}

/**
 * The Node that runs Cardshot here: { path, version, pinned, dir? }. The machine's when it is
 * new enough (a machine with Node 22.14 or 24 uses its own), else the pinned one.
 */
export function chooseNode(root, say) {
  const own = machineNode(root);
  const min = minimumVersion(root);
  if (own && satisfies(own.version, min)) return { path: own.path, version: own.version, pinned: false };
  const version = pinnedVersion(root);
  const bin = ensurePinnedNode(root, version, say);
  return { path: bin, version, pinned: true, dir: pinnedDir(root, version), older: own?.version };
}

/**
 * Points node_modules/.bin/node at `node` (relative for the pinned one, so a moved checkout
 * keeps working). A link that already resolves to the same binary is left alone. Returns
 * whether it changed.
 */
export function linkNode(root, node) {
  const link = nodeLink(root);
  const target = node.pinned ? path.relative(path.dirname(link), node.path) : node.path;
  let current;
  try {
    if (lstatSync(link).isSymbolicLink()) current = readlinkSync(link);
  } catch {
    current = undefined;
  }
  if (current === target) return false;
  if (current !== undefined) {
    try {
      if (realpathSync(link) === realpathSync(node.path)) return false;
    } catch {
      // A dangling link: replaced below.
    }
  }
  mkdirSync(path.dirname(link), { recursive: true });
  rmSync(link, { force: true });
  symlinkSync(target, link);
  return true;
}
