/**
 * Set-up step: builds the blocking engines from the filter lists shipped in npm packages and
 * writes them, serialized, beside the compiled code (lists.ts reads them). Run by
 * scripts/setup.mjs (`node dist/src/render/screenshot/blocking/build.js --if-stale`) and by the
 * image build; never at run time, and never over the network.
 *
 * AdGuard's lists come from `@adguard/dnr-rulesets` (a devDependency: only set-up reads it, so
 * a pruned production install keeps the built engines and drops the 120 MB of rulesets). Each
 * ruleset carries its source filter list verbatim (`rawFilterList`), which the Ghostery engine
 * parses: network rules for the request handler, element hiding rules for the cosmetic pass.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../../../version.js';
import {
  defaultListsDir,
  ENGINE_FILES,
  type EngineKind,
  LIST_SOURCES,
  type ListSource,
  type ListsManifest,
  MANIFEST_FILE,
  readManifest,
} from './lists.js';

/** Bumped when the way engines are built changes, so set-up rebuilds them. */
const BUILD_FORMAT = 1;
const LISTS_PACKAGE = '@adguard/dnr-rulesets';
const ENGINE_PACKAGE = '@ghostery/adblocker';

/** The installed package's folder, looked up from the install root upwards (as Node does). */
function packageDir(name: string): string | undefined {
  let dir = packageRoot();
  for (;;) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

function versionOf(dir: string): string {
  return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The key of what would be built now: the packages' versions, the list choice and the format. */
export function buildKey(listsVersion: string, engineVersion: string): string {
  const input = JSON.stringify({ BUILD_FORMAT, listsVersion, engineVersion, LIST_SOURCES });
  return createHash('sha256').update(input).digest('hex').slice(0, 16);
}

/** One AdGuard filter list, as shipped inside its DNR ruleset, with its header fields. */
function readList(listsDir: string, source: ListSource) {
  const file = path.join(
    listsDir,
    'dist',
    'filters',
    'declarative',
    `ruleset_${source.id}`,
    `ruleset_${source.id}.json`,
  );
  const ruleset = JSON.parse(readFileSync(file, 'utf8')) as Array<{ metadata?: { rawFilterList?: string } }>;
  const raw = ruleset[0]?.metadata?.rawFilterList;
  if (typeof raw !== 'string') throw new Error(`${file} carries no rawFilterList`);
  // The lists have CRLF line ends; a stray \r would end up inside a selector.
  const text = raw.replace(/\r\n?/g, '\n');
  const header = (name: string) => text.match(new RegExp(`^! ${name}: (.+)$`, 'm'))?.[1]?.trim() ?? 'unknown';
  return { text, version: header('Version'), updated: header('TimeUpdated'), lines: text.split('\n').length };
}

/** Writes `data` to `file` through a temporary name, so a reader never sees half a file. */
function writeAtomically(file: string, data: string | Uint8Array): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

/** Builds both engines and the manifest into `outDir`; returns the manifest. */
export async function buildLists(outDir: string, listsPackageDir: string): Promise<ListsManifest> {
  const { FiltersEngine, ENGINE_VERSION } = await import('@ghostery/adblocker');
  const engineDir = packageDir(ENGINE_PACKAGE);
  const packages = {
    [LISTS_PACKAGE]: versionOf(listsPackageDir),
    [ENGINE_PACKAGE]: engineDir ? versionOf(engineDir) : 'unknown',
  };
  mkdirSync(outDir, { recursive: true });
  const lists: ListsManifest['lists'] = [];
  const engines = {} as ListsManifest['engines'];
  for (const kind of Object.keys(LIST_SOURCES) as EngineKind[]) {
    const texts: string[] = [];
    for (const source of LIST_SOURCES[kind]) {
      const { text, ...meta } = readList(listsPackageDir, source);
      texts.push(text);
      lists.push({ ...source, engine: kind, ...meta });
    }
    // Extended selectors (:has-text, :xpath) need the library's content script in the page, and
    // scriptlets run list-supplied JavaScript: neither is loaded, the capture uses plain CSS only.
    const engine = FiltersEngine.parse(texts.join('\n'), {
      loadNetworkFilters: true,
      loadCosmeticFilters: true,
      loadExtendedSelectors: false,
      enableHtmlFiltering: false,
      loadCSPFilters: false,
    });
    const bytes = engine.serialize();
    writeAtomically(path.join(outDir, ENGINE_FILES[kind]), bytes);
    const { networkFilters, cosmeticFilters } = engine.getFilters();
    engines[kind] = {
      bytes: bytes.length,
      networkFilters: networkFilters.length,
      cosmeticFilters: cosmeticFilters.length,
    };
  }
  const manifest: ListsManifest = {
    key: buildKey(packages[LISTS_PACKAGE], packages[ENGINE_PACKAGE]),
    builtAt: new Date().toISOString(),
    packages,
    engineVersion: ENGINE_VERSION,
    lists,
    engines,
  };
  // Last: its presence (with the right key) is what marks the build done.
  writeAtomically(path.join(outDir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/**
 * Builds the engines unless `outDir` already holds them for the installed packages. Without the
 * lists package (a production install pruned of devDependencies) whatever was built stays.
 */
export async function ensureLists(
  outDir: string,
  say: (msg: string) => void,
): Promise<ListsManifest | undefined> {
  const listsDir = packageDir(LISTS_PACKAGE);
  const engineDir = packageDir(ENGINE_PACKAGE);
  const existing = await readManifest(outDir);
  if (!listsDir || !engineDir) {
    if (!existing)
      say(`warning: ${LISTS_PACKAGE} is not installed; blockAds and blockCookieBanners answer 503`);
    return existing;
  }
  if (existing?.key === buildKey(versionOf(listsDir), versionOf(engineDir))) return existing;
  say('building the ad and cookie-banner blocking engines from the bundled filter lists (once)…');
  return buildLists(outDir, listsDir);
}

/** `build.js [dir] [--if-stale] [--quiet]`: builds into `dir` (default dist/blocking). */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const outDir = args.find((a) => !a.startsWith('--')) ?? defaultListsDir();
  const quiet = args.includes('--quiet');
  const say = (msg: string) => {
    if (!quiet) process.stderr.write(`[setup] ${msg}\n`);
  };
  const started = performance.now();
  let manifest: ListsManifest | undefined;
  if (args.includes('--if-stale')) {
    manifest = await ensureLists(outDir, say);
  } else {
    const listsDir = packageDir(LISTS_PACKAGE);
    if (!listsDir) throw new Error(`${LISTS_PACKAGE} is not installed (npm install)`);
    manifest = await buildLists(outDir, listsDir);
  }
  if (manifest && performance.now() - started > 1000) {
    const sizes = Object.entries(manifest.engines).map(([k, e]) => `${k} ${(e.bytes / 1e6).toFixed(1)} MB`);
    say(`blocking engines built in ${Math.round(performance.now() - started)} ms (${sizes.join(', ')})`);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
