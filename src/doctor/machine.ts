import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import { access, statfs, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { CacheConfig } from '../cache/settings.js';
import {
  CHROMIUM_FLAGS,
  chromiumExecutable,
  chromiumProcess,
  chromiumRunner,
  type SandboxSetting,
} from '../render/screenshot/engine/browser/browser.js';
import { startWithSandboxFallback } from '../render/screenshot/engine/browser/sandbox.js';
import type { ScreenshotConfig } from '../render/screenshot/settings.js';
import { createTemplateRenderer } from '../render/template/renderer.js';
import { listFontFiles } from '../render/text/fonts.js';
import type { StorageConfig } from '../storage/settings.js';
import { type Finding, firstLine, formatMiB } from './finding.js';

// Checks of this machine: Chromium, the fonts, the data dir.

/**
 * Debian's fonts that screenshots of real pages need (the same list `npm start` installs):
 * without them a page shows boxes where a visitor's browser shows text.
 */
export const SYSTEM_FONTS = [
  ['fonts-liberation', '/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf'],
  ['fonts-noto-core', '/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf'],
  ['fonts-noto-cjk', '/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc'],
  ['fonts-noto-color-emoji', '/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf'],
] as const;

const run = promisify(execFile);
const MiB = 1024 * 1024;

/** Found, which version, and starts headless with the flags the service uses. */
export async function checkChromium(
  config: Pick<ScreenshotConfig, 'chromiumPath' | 'chromiumSandbox' | 'chromiumUser'>,
): Promise<Finding> {
  const name = 'chromium';
  const { path: exe, fellBack } = chromiumExecutable(config.chromiumPath);
  const install =
    'run `npm start` as root on Debian (it installs the chromium-headless-shell package), or `apt-get install -y chromium-headless-shell`, or set CARDSHOT_CHROMIUM_PATH to a Chromium';
  if (!existsSync(exe)) {
    return {
      name,
      status: 'fail',
      detail: `no executable at ${exe}; GET /render/url answers 503`,
      fix: install,
    };
  }
  let version = '';
  try {
    version = (await run(exe, ['--version'], { timeout: 15_000 })).stdout.trim();
  } catch (err) {
    return { name, status: 'fail', detail: `${exe} --version failed: ${firstLine(err)}`, fix: install };
  }
  const setting: SandboxSetting = config.chromiumSandbox;
  const runner = chromiumRunner(setting, config.chromiumUser);
  const createUser = `run \`npm run setup\` as root (it creates the user ${config.chromiumUser}), or run Cardshot as an unprivileged user`;
  if (runner.error) return { name, status: 'fail', detail: runner.error, fix: createUser };
  const started = performance.now();
  const shoot = async (sandbox: boolean) => {
    // Loaded here: the other checks, and a doctor on a node without Chromium, do not need it.
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      ...chromiumProcess(exe, sandbox, runner.asUser),
      headless: true,
      args: CHROMIUM_FLAGS,
      timeout: 30_000,
    });
    try {
      const page = await browser.newPage();
      await page.setContent('<p>doctor</p>');
      await page.screenshot({ type: 'png' });
    } finally {
      await browser.close();
    }
  };
  let sandbox: boolean;
  let sandboxError: string | undefined;
  try {
    // The same choice the service makes: the sandbox when wanted, without it if `auto` must.
    ({ sandbox, sandboxError } = await startWithSandboxFallback(setting, runner, shoot));
  } catch (err) {
    return {
      name,
      status: 'fail',
      detail: `${version} is installed but did not start headless: ${firstLine(err)}`,
      fix: 'run the printed command by hand to see why; a container may need `--init` and enough /dev/shm, and the service must not run Chromium from a read-only home',
    };
  }
  const how = sandbox ? 'with its sandbox' : 'WITHOUT its sandbox';
  const as = runner.asUser ? ` as ${runner.asUser.name}` : '';
  const detail = `${version} at ${exe}; started headless${as} ${how} with the service's flags and took a screenshot in ${Math.round(performance.now() - started)} ms`;
  if (runner.warning) {
    return { name, status: 'warn', detail: `${detail}; ${runner.warning}`, fix: createUser };
  }
  if (sandboxError) {
    return {
      name,
      status: 'warn',
      detail: `${detail}; the sandbox could not start here (${sandboxError})`,
      fix: 'allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or a container runtime that permits them), or set CARDSHOT_CHROMIUM_SANDBOX=off to accept running without it',
    };
  }
  if (fellBack) {
    return {
      name,
      status: 'warn',
      detail: `${detail}; ${config.chromiumPath} (the default, Debian's chromium-headless-shell) is not installed, so the full browser is used, about half as fast`,
      fix: 'apt-get install -y chromium-headless-shell (npm start does this on Debian as root)',
    };
  }
  return { name, status: 'ok', detail };
}

/** Every bundled template font is present and the renderer draws a card with them. */
export async function checkTemplateFonts(): Promise<Finding> {
  const name = 'template fonts';
  const fix = 'run `npm ci` (the @fontsource packages are missing or damaged)';
  const files = listFontFiles();
  const missing = files.filter((f) => !existsSync(f.path));
  if (missing.length > 0) {
    return {
      name,
      status: 'fail',
      detail: `${missing.length} of ${files.length} font files missing, e.g. ${missing[0]!.path}`,
      fix,
    };
  }
  const started = performance.now();
  try {
    const renderer = await createTemplateRenderer();
    const { png } = await renderer.render('blog', { title: 'Doctor: 你好, مرحبا, 🚀' });
    await renderer.close();
    return {
      name,
      status: 'ok',
      detail: `${files.length} font files registered and a test card rendered (${png.length} bytes) in ${Math.round(performance.now() - started)} ms`,
    };
  } catch (err) {
    return { name, status: 'fail', detail: `the renderer failed: ${firstLine(err)}`, fix };
  }
}

/** The Debian fonts pages expect are installed. */
export function checkSystemFonts(): Finding {
  const missing = SYSTEM_FONTS.filter(([, file]) => !existsSync(file)).map(([pkg]) => pkg);
  if (missing.length === 0) {
    return { name: 'screenshot fonts', status: 'ok', detail: SYSTEM_FONTS.map(([pkg]) => pkg).join(', ') };
  }
  return {
    name: 'screenshot fonts',
    status: 'warn',
    detail: `missing ${missing.join(', ')}: screenshots show boxes for those scripts or emoji`,
    fix: `apt-get install -y --no-install-recommends ${missing.join(' ')} (npm start does this on Debian as root)`,
  };
}

/**
 * The data dir exists (or can be made), is writable, and has room for the disk cache. A missing
 * one is not made: `npx cardshot doctor` run in another project would leave an empty `./data`
 * behind; the nearest existing parent is checked instead, as the server will create it there.
 */
export async function checkDataDir(
  config: Pick<StorageConfig, 'dataDir'> & Pick<CacheConfig, 'cacheDiskBytes'>,
): Promise<Finding> {
  const name = 'data dir';
  const dir = path.resolve(config.dataDir);
  const fix = `make ${dir} a directory the service's user can write (CARDSHOT_DATA_DIR), on a persistent volume`;
  const parent = nearestExisting(dir);
  try {
    if (parent === dir) {
      const probe = path.join(dir, `.doctor-${randomBytes(4).toString('hex')}`);
      await writeFile(probe, 'ok');
      await unlink(probe);
    } else {
      await access(parent, constants.W_OK);
    }
  } catch (err) {
    return {
      name,
      status: 'fail',
      detail: `${parent === dir ? dir : parent} is not writable: ${firstLine(err)}`,
      fix,
    };
  }
  const fs = await statfs(parent);
  const free = fs.bavail * fs.bsize;
  const needed = config.cacheDiskBytes + 256 * MiB;
  const detail =
    parent === dir
      ? `${dir} is writable; ${formatMiB(free)} free`
      : `${dir} can be made (${parent} is writable); ${formatMiB(free)} free`;
  if (free < needed) {
    return {
      name,
      status: 'warn',
      detail: `${detail}, less than the disk cache budget (${formatMiB(config.cacheDiskBytes)}) plus 256 MiB for the database`,
      fix: 'free some space, or lower CARDSHOT_CACHE_DISK_BYTES',
    };
  }
  return { name, status: 'ok', detail };
}

/** `dir` itself when it exists, else its nearest existing ancestor. */
function nearestExisting(dir: string): string {
  let at = dir;
  while (!existsSync(at) && path.dirname(at) !== at) at = path.dirname(at);
  return at;
}
