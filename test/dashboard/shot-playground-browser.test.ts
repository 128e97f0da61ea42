// @module-tag chromium
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable, FULL_CHROMIUM } from '../helpers/browser.js';
import {
  BASIC,
  type CredentialSite,
  SESSION,
  startCredentialSite,
  TOKEN,
} from '../helpers/credential-site.js';
import { PASSWORD } from '../helpers/dashboard.js';
import { pngSize } from '../helpers/png.js';

// The screenshot playground in a real browser with a page behind a sign-in (issue 29): the
// credentials typed into it are sent with the capture and kept nowhere (not the page's address
// or history, the browser's storage, the server's database, files or logs); a PDF capture shows
// in the page (the full browser: its PDF viewer draws it) with a download; response=json shows
// the page's facts. `npm run docs:screens` keeps the screenshot in docs/img.
const run = chromiumAvailable(FULL_CHROMIUM);
const screensDir = process.env.CARDSHOT_SCREENS_DIR;
const SECRETS = [
  TOKEN,
  SESSION,
  BASIC.password,
  Buffer.from(`${BASIC.username}:${BASIC.password}`).toString('base64'),
];

describe.runIf(run)('screenshot playground signed in (Chromium)', () => {
  let t: TestApp;
  let site: CredentialSite;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let shotsDir: string;
  const sent: Request[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    shotsDir = screensDir ?? (await mkdtemp(path.join(os.tmpdir(), 'cardshot-screens-')));
    await mkdir(shotsDir, { recursive: true });
    site = await startCredentialSite();
    t = await startTestApp({ allowPrivateHosts: [site.hostPort, site.other.hostPort] });
    base = await t.listen();
    const { accounts, credentials } = t.modules.accounts;
    const account = await accounts.createAccount({ name: 'Acme Inc', email: 'ops@acme.test', plan: 'pro' });
    await credentials.setPassword(account.id, PASSWORD);
    await accounts.createKey({ accountId: account.id, name: 'Marketing site', environment: 'production' });

    // The full browser: the headless shell has no PDF viewer.
    browser = await chromium.launch({
      executablePath: FULL_CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
      ],
    });
    context = await browser.newContext({ viewport: { width: 1360, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
    page.on('request', (r) => sent.push(r));
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource'))
        problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    await page.goto(`${base}/dashboard/sign-in`);
    await page.getByLabel('Email').fill('ops@acme.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await Promise.all([
      page.waitForURL(`${base}/dashboard`),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await site?.close();
    if (!screensDir && shotsDir) await rm(shotsDir, { recursive: true, force: true });
  });

  /** Types the three credentials into the signed-in fieldset. */
  const signIn = async () => {
    await page.getByLabel('Header name').fill('X-Token');
    await page.getByLabel('Header value').fill(TOKEN);
    await page.getByLabel('Cookie name').fill('session');
    await page.getByLabel('Cookie value').fill(SESSION);
    await page.getByLabel('Basic auth username').fill(BASIC.username);
    await page.getByLabel('Basic auth password').fill(BASIC.password);
  };

  it('captures the page signed in from what was typed, and keeps the credentials nowhere', async () => {
    await page.goto(`${base}/dashboard/playground/screenshot`);
    expect(await page.locator('#shot-credentials').isVisible()).toBe(true);
    await page.getByLabel('Page URL').fill(`${site.url}/account`);
    await page.getByLabel('Viewport').selectOption('desktop');
    await signIn();
    // The command to use from a server: a POST, the values left out; no signed URL.
    await expect.poll(() => page.locator('#shot-curl').textContent()).toContain('"X-Token": "…"');
    expect(await page.locator('#shot-signed').textContent()).toBe('');
    expect(await page.locator('#shot-signed-hint').textContent()).toContain('No signed URL');

    await page.getByRole('button', { name: 'Capture' }).click();
    await expect
      .poll(() => page.locator('#shot-facts').textContent(), { timeout: 30_000 })
      .toMatch(/^1280 × 800 · PNG · [\d.]+ KB · MISS · [\d.]+ s$/);
    // Signed in: the page is green (red when any credential is missing).
    const pixel = await page.locator('#shot-preview').evaluate((el) => {
      const img = el as unknown as { naturalWidth: number; naturalHeight: number };
      const doc = (globalThis as unknown as { document: { createElement(t: 'canvas'): Canvas } }).document;
      const canvas = doc.createElement('canvas');
      canvas.width = img.naturalWidth;
      canvas.height = img.naturalHeight;
      const ctx = canvas.getContext('2d');
      ctx.drawImage(el, 0, 0);
      return Array.from(ctx.getImageData(10, 10, 1, 1).data);
    });
    expect(pixel).toEqual([0, 255, 0, 255]);
    expect(site.seen.get('/account')?.at(-1)?.['x-token']).toBe(TOKEN);

    // Sent with the capture POST only: no other request of the page carried a value.
    const captures = sent.filter((r) => r.url() === `${base}/dashboard/playground/screenshot/capture`);
    expect(captures.length).toBe(1);
    expect(captures[0]!.postData()).toContain(TOKEN);
    for (const r of sent.filter((r) => !captures.includes(r))) {
      const all = `${r.url()} ${r.postData() ?? ''}`;
      for (const secret of SECRETS) expect(all, r.url()).not.toContain(secret);
    }
    await expectKeptNowhere();
  });

  it('shows a PDF capture in the page, with a download', async () => {
    await page.getByLabel('Format').selectOption('pdf');
    await page.getByRole('button', { name: 'Capture' }).click();
    await expect
      .poll(() => page.locator('#shot-facts').textContent(), { timeout: 30_000 })
      .toMatch(/^PDF · 1 page · [\d.]+ KB · MISS · [\d.]+ s$/);
    expect(await page.locator('#shot-preview').isHidden()).toBe(true);
    const frame = page.locator('#shot-pdf');
    expect(await frame.isVisible()).toBe(true);
    expect(await frame.getAttribute('src')).toMatch(/^blob:http:\/\/127\.0\.0\.1:\d+\//);
    // The browser's PDF viewer opened it inside the page.
    await expect
      .poll(() => page.frames().some((f) => f.url().startsWith('chrome-extension://')), { timeout: 15_000 })
      .toBe(true);
    const box = await frame.boundingBox();
    expect(box!.height).toBeGreaterThan(400);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download page.pdf' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('page.pdf');
    const bytes = await readFile((await download.path())!);
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    await page.waitForTimeout(1000);
    const height = await page.evaluate<number>('document.documentElement.scrollHeight');
    await page.setViewportSize({ width: 1360, height });
    const buf = await page.screenshot({
      path: path.join(shotsDir, 'dashboard-screenshot-playground-pdf.png'),
    });
    expect(pngSize(buf).width).toBe(1360);
    await page.setViewportSize({ width: 1360, height: 900 });
    await expectKeptNowhere();
  });

  it('response=json shows the page facts; the image URL is left out for a signed-in capture', async () => {
    await page.getByLabel('Format').selectOption('png');
    await page.getByLabel('Answer').selectOption('json');
    await page.getByRole('button', { name: 'Capture' }).click();
    await expect
      .poll(() => page.locator('#shot-facts').textContent(), { timeout: 30_000 })
      .toMatch(/^JSON · 1280 × 800 · PNG · [\d.]+ KB · (HIT|MISS) · [\d.]+ s$/);
    expect(await page.locator('#shot-page-facts').textContent()).toContain('Titleaccount');
    expect(await page.locator('#shot-page-facts').textContent()).toContain('Status200');
    expect(await page.locator('#shot-note').textContent()).toContain('No image URL');
    expect(JSON.parse((await page.locator('#shot-json-body').textContent())!).image.url).toBeNull();

    // Without credentials: the API's GET answer, with a signed image URL the page shows.
    for (const row of ['Header', 'Cookie']) {
      await page.getByLabel(`${row} name`).fill('');
    }
    await page.getByLabel('Basic auth username').fill('');
    await page.getByLabel('Basic auth password').fill('');
    await page.getByRole('button', { name: 'Capture' }).click();
    await expect.poll(() => page.locator('#shot-note').isHidden(), { timeout: 30_000 }).toBe(true);
    // The preview is the signed URL's own capture: seconds on a loaded node, not the poll's 1 s.
    await expect.poll(() => page.locator('#shot-preview').isVisible(), { timeout: 30_000 }).toBe(true);
    const answer = JSON.parse((await page.locator('#shot-json-body').textContent())!);
    expect(answer.page.status).toBe(401);
    expect(answer.image.url).toMatch(/\/render\/url\?url=.*&kid=key_\w+&exp=\d+&sig=/);
    expect(await page.locator('#shot-preview').getAttribute('src')).toBe(answer.image.url);
    expect(problems, problems.join('\n')).toEqual([]);
  }, 90_000); // three captures, each up to its 30 s poll on a loaded node

  /** Not in the address or history, the browser's storage, the server's files or logs. */
  async function expectKeptNowhere() {
    const inPage = await page.evaluate<string>(
      'JSON.stringify([location.href, history.length, {...localStorage}, {...sessionStorage}, document.cookie])',
    );
    const storage = await context.storageState();
    const logs = JSON.stringify(t.logs);
    const files = await Promise.all(
      (await readdir(t.config.dataDir, { withFileTypes: true, recursive: true }))
        .filter((e) => e.isFile())
        .map(async (e) => {
          const file = path.join(e.parentPath, e.name);
          // A cache file being written may be renamed away meanwhile: what is left is read.
          return [file, await readFile(file).catch(() => Buffer.alloc(0))] as const;
        }),
    );
    for (const secret of SECRETS) {
      expect(inPage).not.toContain(secret);
      expect(JSON.stringify(storage)).not.toContain(secret);
      expect(logs).not.toContain(secret);
      for (const [file, bytes] of files) expect(bytes.includes(secret), `${secret} in ${file}`).toBe(false);
    }
  }
});

/** The parts of a <canvas> the test reads a preview's pixels with. */
interface Canvas {
  width: number;
  height: number;
  getContext(kind: '2d'): {
    drawImage(image: unknown, x: number, y: number): void;
    getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> };
  };
}
