import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { settings } from '../../src/settings.js';

/**
 * The service's default browser (Debian's headless shell), or CARDSHOT_CHROMIUM_PATH. Browser
 * downloads do not work here (no internet).
 */
export const CHROMIUM = process.env.CARDSHOT_CHROMIUM_PATH || settings.chromiumPath.default;

/** Debian's full browser, the documented alternative to the headless shell. */
export const FULL_CHROMIUM = '/usr/bin/chromium';

/**
 * True when Chromium is installed. In CI a missing browser fails the suite (it must run
 * there); elsewhere the browser tests are skipped with a message saying how to install it.
 */
export function chromiumAvailable(executable = CHROMIUM): boolean {
  if (existsSync(executable)) return true;
  const msg = `Chromium is not installed at ${executable} (npm test installs it on Debian as root: apt-get install -y chromium-headless-shell chromium; or set CARDSHOT_CHROMIUM_PATH)`;
  if (process.env.CI === 'true') throw new Error(`${msg}: CI needs it`);
  process.stderr.write(`skipping browser tests: ${msg}\n`);
  return false;
}

/** Headless Chromium with the flags this machine needs (root, no background traffic). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/**
 * Collects what a dashboard page reports as broken (console errors, uncaught exceptions) into
 * `problems`; `ignoreFailedLoads` leaves out Chromium's "Failed to load resource" lines, which a
 * test that answers some requests with an error status expects.
 */
export function watchProblems(
  page: Page,
  problems: string[],
  opts: { ignoreFailedLoads?: boolean } = {},
): void {
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    if (opts.ignoreFailedLoads && m.text().startsWith('Failed to load resource')) return;
    problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
}

/** Signs in through the dashboard's form and waits for the overview. */
export async function signInPage(page: Page, base: string, email: string, password: string): Promise<void> {
  await page.goto(`${base}/dashboard/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await Promise.all([page.waitForURL(`${base}/dashboard`), page.getByLabel('Password').press('Enter')]);
}
