#!/usr/bin/env node
// One idempotent set-up for `npm start`, `npm test` and `npx cardshot`: the Node.js that runs
// Cardshot (the machine's when it satisfies `engines`, else the pinned one from .node-version,
// fetched into .runtime/: see scripts/node-runtime.mjs), dependencies from the lockfile built for
// that Node, the TypeScript build, the ad and cookie-banner blocking engines (built from the
// filter lists in node_modules), the data directory, and Debian's Chromium with the fonts pages
// need (for GET /render/url): its headless shell, which Cardshot drives, and its full browser. Each step is skipped when already done,
// so a second run costs well under a second. Plain JavaScript: it runs before anything is built,
// on whatever Node the machine has (npm scripts call it as `scripts/setup.mjs`, through its
// shebang, so that their shell looks `node` up only after this linked node_modules/.bin/node).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chooseNode, linkNode, removeOtherPinned } from './node-runtime.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const quiet = process.argv.includes('--quiet');
// `npm test` only: the scale-out test runs Debian's nginx in front of two nodes. `npm start`
// never needs it.
const forTests = process.argv.includes('--test');
// `npm test` and `npm run bench:screenshot` need Debian's full browser (a test captures with it;
// the benchmark's per-capture baseline launches it); `npm start` installs it alongside the shell.
const wantsFullBrowser = forTests || process.argv.includes('--bench');
const say = (msg) => {
  if (!quiet) process.stderr.write(`[setup] ${msg}\n`);
};
const run = (cmd, args, env = {}) =>
  execFileSync(cmd, args, {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, ...env },
  });

/** The set-up itself only needs a Node that runs this file; Cardshot runs on the one chooseNode picks. */
function checkNode() {
  if (Number(process.versions.node.split('.')[0]) < 18) {
    throw new Error(`the set-up needs Node.js 18 or newer to start (this is ${process.versions.node})`);
  }
}

/**
 * What a complete install leaves behind: every package the lockfile's package.json names (the
 * build's TypeScript included). npm can exit 0 without installing anything (it printed "Exit
 * handler never called!" after failed registry fetches), so its exit code alone never marks the
 * install done; after an install, better-sqlite3 must also load (ensureDependencies).
 */
function missingFromInstall() {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const names = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})];
  const expected = [
    ...names.map((n) => path.join('node_modules', n, 'package.json')),
    path.join('node_modules', 'typescript', 'bin', 'tsc'),
  ];
  return expected.filter((f) => !existsSync(path.join(root, f)));
}

/** What the dependency stamp records: the lockfile, and which Node built node_modules' native modules. */
function dependencyStamp(node) {
  const lock = readFileSync(path.join(root, 'package-lock.json'));
  const hash = createHash('sha256').update(lock).digest('hex');
  return `lock ${hash}\nnode ${node.version} ${process.platform}-${process.arch}\n`;
}

function ensureDependencies(node) {
  const want = dependencyStamp(node);
  const stamp = path.join(root, 'node_modules', '.cardshot-lock-hash');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want && missingFromInstall().length === 0) return;
  // No stamp while installing: an install cut short (or failed) must not look done next time.
  rmSync(stamp, { force: true });
  say(`installing dependencies from package-lock.json for Node.js ${node.version} (npm ci)…`);
  // `--include=dev`: the build needs TypeScript, and under NODE_ENV=production npm ci would leave
  // devDependencies out. With the pinned Node, its folder goes first on PATH, so npm itself and
  // every install script run on it, and a native build (node-gyp) would take that Node's headers
  // (npm_config_nodedir) instead of downloading them. The native modules (better-sqlite3 13,
  // sharp, takumi) are Node-API binaries that come inside their npm packages, sha512-checked
  // against the lockfile: nothing is compiled, and they load on any Node with Node-API 10.
  const env = {};
  if (node.pinned) {
    env.PATH = `${path.dirname(node.path)}${path.delimiter}${process.env.PATH ?? ''}`;
    env.npm_config_nodedir = node.dir;
  }
  run('npm', ['ci', '--include=dev', '--no-audit', '--no-fund', '--loglevel=error'], env);
  const missing = missingFromInstall();
  if (missing.length > 0) {
    throw new Error(
      `npm ci did not install everything (missing ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? `, and ${missing.length - 3} more` : ''}); check the npm registry is reachable and run it again`,
    );
  }
  // The database driver must load under the Node that runs Cardshot (a Node without Node-API 10,
  // or a binary for another platform, fails here rather than at the first start).
  const load = spawnSync(node.path, ['-e', "new (require('better-sqlite3'))(':memory:').close()"], {
    cwd: root,
    encoding: 'utf8',
  });
  if (load.status !== 0) {
    const why = (load.stderr || String(load.error)).split('\n').find((l) => /Error/.test(l));
    throw new Error(
      `better-sqlite3 does not load under Node.js ${node.version} after npm ci: ${why ?? 'see above'}`,
    );
  }
  writeFileSync(stamp, want);
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

function ensureBuild(node) {
  const stamp = path.join(root, 'dist', '.build-stamp');
  const inputs = Math.max(
    ...['src', 'bench', 'test/golden', 'test/helpers'].map((d) => newestMtime(path.join(root, d))),
    ...['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'].map(
      (f) => statSync(path.join(root, f)).mtimeMs,
    ),
  );
  const main = path.join(root, 'dist', 'src', 'main.js');
  if (existsSync(stamp) && statSync(stamp).mtimeMs >= inputs && existsSync(main)) return;
  // The stamp goes first and comes back only after tsc succeeded: a failed or interrupted build
  // is redone on the next start, never taken for done.
  rmSync(stamp, { force: true });
  say('building (tsc)…');
  try {
    run(node.path, [
      path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      'tsconfig.build.json',
    ]);
  } catch (err) {
    throw new Error(
      `the TypeScript build failed (${err.status != null ? `tsc exit ${err.status}` : err.message})`,
    );
  }
  if (!existsSync(main)) throw new Error(`the TypeScript build did not write ${path.relative(root, main)}`);
  writeFileSync(stamp, new Date().toISOString());
}

// Chromium plus the fonts a page expects to find: Liberation (metric-compatible Arial, Times New
// Roman and Courier New, so pages that name them keep their layout), Noto for non-Latin
// scripts, Noto CJK, and Noto Color Emoji. Without them a screenshot shows boxes where a
// visitor's browser shows text. `--no-install-recommends` skips ~100 desktop packages Chromium
// never uses headless. Each font is checked by one file it ships, so a present set costs a few
// stat calls.
const FONT_PACKAGES = [
  ['fonts-liberation', '/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf'],
  ['fonts-noto-core', '/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf'],
  ['fonts-noto-cjk', '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc'],
  ['fonts-noto-color-emoji', '/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf'],
];

/** The Chromium the service will launch: CARDSHOT_CHROMIUM_PATH, the config file, or Debian's. */
function chromiumPath() {
  if (process.env.CARDSHOT_CHROMIUM_PATH) return process.env.CARDSHOT_CHROMIUM_PATH;
  const file = process.env.CARDSHOT_CONFIG || path.join(process.cwd(), 'cardshot.config.json');
  try {
    const fromFile = JSON.parse(readFileSync(file, 'utf8')).chromiumPath;
    if (typeof fromFile === 'string' && fromFile !== '') return fromFile;
  } catch {
    // No file or not JSON: the service itself reports a bad config file at start.
  }
  return HEADLESS_SHELL;
}

// Debian builds both from its chromium source. The headless shell is the default browser (see
// chromiumPath in src/render/screenshot/settings.ts for why); the full browser is the
// alternative, and what the service falls back to when the default is missing.
const HEADLESS_SHELL = '/usr/lib/chromium/chromium-headless-shell';
const FULL_BROWSER = '/usr/bin/chromium';
const DEBIAN_PACKAGE = {
  [HEADLESS_SHELL]: 'chromium-headless-shell',
  '/usr/bin/chromium-headless-shell': 'chromium-headless-shell',
  [FULL_BROWSER]: 'chromium',
};

/** apt-get install of `wanted`, refreshing the package lists once when the first try fails. */
function aptInstall(wanted, what) {
  if (!existsSync('/usr/bin/apt-get') || process.getuid?.() !== 0) {
    say(`warning: cannot install ${wanted.join(', ')} (needs Debian's apt-get as root); ${what}`);
    return;
  }
  say(`installing ${wanted.join(', ')} with apt-get (one time, about a minute)…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args) =>
    execFileSync('apt-get', args, {
      cwd: root,
      env,
      stdio: ['ignore', quiet ? 'ignore' : 'inherit', 'inherit'],
    });
  const install = ['install', '-y', '-qq', '--no-install-recommends', ...wanted];
  try {
    apt(install);
  } catch {
    // A fresh machine has empty or stale package lists: refresh once, then try again.
    try {
      apt(['update', '-qq']);
      apt(install);
    } catch (err) {
      say(`warning: apt-get failed (${err.message}); ${what}`);
    }
  }
}

function ensureChromium() {
  const wanted = [];
  const browser = chromiumPath();
  if (!existsSync(browser)) {
    // A custom path that is missing is the operator's to fix; apt only provides Debian's.
    if (DEBIAN_PACKAGE[browser]) wanted.push(DEBIAN_PACKAGE[browser]);
    else say(`warning: CARDSHOT_CHROMIUM_PATH=${browser} does not exist; screenshots will answer 503`);
  }
  for (const [pkg, file] of FONT_PACKAGES) if (!existsSync(file)) wanted.push(pkg);
  // Debian's full browser rides along whenever apt runs anyway for a Debian set-up (so a fresh
  // machine gets both in one go: the alternative and the fallback), and is required for the
  // tests and the benchmark. On its own it never triggers apt at start.
  const fullMissing = !existsSync(FULL_BROWSER) && !wanted.includes('chromium');
  if (fullMissing && (wantsFullBrowser || (wanted.length > 0 && DEBIAN_PACKAGE[browser]))) {
    wanted.push('chromium');
  }
  if (wanted.length === 0) return;
  const meanwhile =
    browser === HEADLESS_SHELL && existsSync(FULL_BROWSER)
      ? `screenshots use ${FULL_BROWSER} meanwhile, about half as fast`
      : 'templates work, GET /render/url answers 503 until Chromium is installed';
  aptInstall(wanted, meanwhile);
}

/** A setting from its environment variable or the config file (as the service reads them), else `fallback`. */
function setting(envName, key, fallback) {
  if (process.env[envName]) return process.env[envName];
  const file = process.env.CARDSHOT_CONFIG || path.join(process.cwd(), 'cardshot.config.json');
  try {
    const fromFile = JSON.parse(readFileSync(file, 'utf8'))[key];
    if (typeof fromFile === 'string' && fromFile !== '') return fromFile;
  } catch {
    // No file or not JSON: the service itself reports a bad config file at start.
  }
  return fallback;
}

/**
 * As root, the unprivileged system user Chromium runs as (CARDSHOT_CHROMIUM_USER): Chromium
 * refuses its sandbox as root, so a root service starts it as this user instead (see
 * scripts/chromium-as-user.sh). No login shell, no password; its home (/var/lib/<name>) holds
 * fontconfig's and Chromium's caches. As any other user there is nothing to do: Chromium runs
 * as that user, sandboxed.
 */
function ensureChromiumUser() {
  if (process.getuid?.() !== 0) return;
  const name = setting('CARDSHOT_CHROMIUM_USER', 'chromiumUser', 'cardshot-chromium');
  if (!/^[a-z_][a-z0-9_-]{0,31}$/.test(name)) return; // the service reports the bad setting
  const passwd = existsSync('/etc/passwd') ? readFileSync('/etc/passwd', 'utf8') : '';
  if (passwd.split('\n').some((line) => line.startsWith(`${name}:`))) return;
  say(`creating the system user ${name}, which Chromium runs as (its sandbox cannot run as root)…`);
  try {
    execFileSync(
      'useradd',
      [
        '--system',
        '--user-group',
        '--create-home',
        '--home-dir',
        `/var/lib/${name}`,
        '--shell',
        '/usr/sbin/nologin',
        '--comment',
        "Cardshot's Chromium",
        name,
      ],
      { stdio: ['ignore', 'inherit', 'inherit'] },
    );
  } catch (err) {
    say(`warning: useradd ${name} failed (${err.message}); Chromium will run as root without its sandbox`);
  }
}

/** Debian's nginx for the scale-out test (test/cache/scale-out.test.ts); a stat when present. */
function ensureNginx() {
  if (existsSync('/usr/sbin/nginx')) return;
  aptInstall(['nginx'], 'the scale-out test fails in CI and is skipped elsewhere');
}

/** Debian's tesseract for the test that every card's title reads back by OCR (test/render/template/ocr.test.ts). */
function ensureTesseract() {
  if (existsSync('/usr/bin/tesseract')) return;
  aptInstall(
    ['tesseract-ocr', 'tesseract-ocr-eng'],
    'the OCR title test fails in CI and is skipped elsewhere',
  );
}

/** Debian's poppler-utils: the PDF tests read pages, paper size and words with pdfinfo and pdftotext. */
function ensurePoppler() {
  if (existsSync('/usr/bin/pdfinfo') && existsSync('/usr/bin/pdftotext')) return;
  aptInstall(['poppler-utils'], 'the PDF tests (test/http/render-url-pdf*.test.ts) fail without it');
}

/**
 * Prometheus's `promtool`, for the test that `GET /metrics` passes `promtool check metrics`
 * (test/health/health-metrics.test.ts). Only the one binary is taken out of Debian's `prometheus`
 * package (apt-get download + dpkg-deb): installing the package would start a Prometheus server.
 */
const PROMTOOL = path.join(root, 'node_modules', '.cache', 'cardshot', 'promtool');
function ensurePromtool() {
  if (existsSync(PROMTOOL) || !existsSync('/usr/bin/apt-get')) return;
  say("fetching promtool from Debian's prometheus package (tests only, once)…");
  const dir = path.dirname(PROMTOOL);
  const work = path.join(dir, 'deb');
  try {
    mkdirSync(work, { recursive: true });
    const download = () =>
      execFileSync('apt-get', ['download', '-qq', 'prometheus'], {
        cwd: work,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
    try {
      download();
    } catch {
      execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'] });
      download();
    }
    const deb = readdirSync(work).find((f) => f.endsWith('.deb'));
    if (!deb) throw new Error('apt-get download left no .deb');
    execFileSync('dpkg-deb', ['-x', path.join(work, deb), path.join(work, 'x')]);
    renameSync(path.join(work, 'x', 'usr', 'bin', 'promtool'), PROMTOOL);
  } catch (err) {
    say(`warning: could not get promtool (${err.message}); the metrics-format test fails in CI`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The blocking engines behind blockAds and blockCookieBanners, built once from the filter lists in
 * node_modules into dist/blocking (a few seconds); afterwards one node start that reads their
 * manifest. A failure leaves those two options answering 503, never the service down.
 */
function ensureBlockingLists(node) {
  const builder = path.join(root, 'dist', 'src', 'render', 'screenshot', 'blocking', 'build.js');
  if (!existsSync(builder)) return;
  try {
    run(node.path, [builder, '--if-stale', ...(quiet ? ['--quiet'] : [])]);
  } catch (err) {
    say(
      `warning: building the blocking lists failed (${err.status != null ? `exit ${err.status}` : err.message}); blockAds and blockCookieBanners answer 503`,
    );
  }
}

/** node_modules/.bin/node → the chosen Node (after npm ci, which empties node_modules). */
function ensureNodeLink(node) {
  if (!linkNode(root, node)) return;
  if (node.pinned) {
    removeOtherPinned(root, node.dir);
    say(
      `Cardshot runs on Node.js ${node.version} from ${path.relative(root, node.dir)}/ (${node.older ? `this machine's is ${node.older}, older than package.json's engines` : 'this machine has no node on PATH'})`,
    );
  } else {
    say(`Cardshot runs on this machine's Node.js ${node.version} (${node.path})`);
  }
}

function ensureDataDir() {
  const dir = path.resolve(root, process.env.CARDSHOT_DATA_DIR || 'data');
  // Owner-only: it holds the database, the server secret and the first-run key file.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

try {
  checkNode();
  const node = chooseNode(root, say);
  ensureDependencies(node);
  ensureNodeLink(node);
  ensureBuild(node);
  ensureBlockingLists(node);
  ensureDataDir();
  ensureChromium();
  ensureChromiumUser();
  if (forTests) ensureNginx();
  if (forTests) ensurePromtool();
  if (forTests) ensureTesseract();
  if (forTests) ensurePoppler();
} catch (err) {
  process.stderr.write(`[setup] failed: ${err.message}\n`);
  process.exit(1);
}
