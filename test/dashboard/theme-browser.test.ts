// @module-tag chromium
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable, launchChromium } from '../helpers/browser.js';
import { PASSWORD } from '../helpers/dashboard.js';
import { hostileFonts, serifWoff2 } from '../helpers/fonts.js';
import { pngSize } from '../helpers/png.js';
import { withThemedTemplates } from '../helpers/theme-app.js';

// The Theme page in a real browser against the real server, with the `themed` fixture template
// (its pixels are known exactly); the docs picture shows a built-in that draws themes
// (`npm run docs:screens` keeps it).
const run = chromiumAvailable();
const screensDir = process.env.CARDSHOT_SCREENS_DIR;

describe.runIf(run)('Theme page in Chromium', () => {
  let base: TestApp;
  let t: TestApp;
  let url: string;
  let browser: Browser;
  let page: Page;
  let accountId: string;
  let shotsDir: string;
  const problems: string[] = [];

  /** The preview's pixel as #RRGGBB, read through a canvas (the image is a same-origin blob). */
  const previewPixel = (x: number, y: number) =>
    page.locator('#theme-preview').evaluate(
      (el, [px, py]) => {
        const img = el as unknown as { naturalWidth: number; naturalHeight: number; complete: boolean };
        if (!img.complete || img.naturalWidth === 0) return 'loading';
        const doc = (globalThis as unknown as { document: { createElement(n: string): unknown } }).document;
        const canvas = doc.createElement('canvas') as {
          width: number;
          height: number;
          getContext(k: '2d'): {
            drawImage(i: unknown, x: number, y: number): void;
            getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> };
          };
        };
        canvas.width = img.naturalWidth;
        canvas.height = img.naturalHeight;
        const ctx = canvas.getContext('2d');
        ctx.drawImage(el, 0, 0);
        const d = ctx.getImageData(px!, py!, 1, 1).data;
        return `#${[d[0]!, d[1]!, d[2]!].map((c) => c.toString(16).padStart(2, '0')).join('')}`.toUpperCase();
      },
      [x, y],
    );

  beforeAll(async () => {
    shotsDir = screensDir ?? (await mkdtemp(path.join(os.tmpdir(), 'cardshot-theme-screens-')));
    await mkdir(shotsDir, { recursive: true });
    base = await startTestApp();
    t = await withThemedTemplates(base);
    url = await t.listen();
    const { accounts, credentials } = t.modules.accounts;
    const account = await accounts.createAccount({ name: 'Acme Inc', email: 'brand@acme.test', plan: 'pro' });
    accountId = account.id;
    await credentials.setPassword(account.id, PASSWORD);
    browser = await launchChromium();
    const context = await browser.newContext({
      viewport: { width: 1360, height: 900 },
      deviceScaleFactor: 1,
    });
    page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await base?.close();
    if (!screensDir && shotsDir) await rm(shotsDir, { recursive: true, force: true });
  });

  it('sets colours, sees the preview change before saving, saves, and finds them after a reload', async () => {
    await page.goto(`${url}/dashboard/theme`);
    await page.getByLabel('Email').fill('brand@acme.test');
    await page.getByLabel('Password').fill(PASSWORD);
    await Promise.all([
      page.waitForURL(`${url}/dashboard/theme`),
      page.getByLabel('Password').press('Enter'),
    ]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Brand theme');
    // The fixture that draws the theme (the page selects the first template that does).
    await page.getByLabel('Template').selectOption('themed');
    // On load the preview is redrawn from the form (the defaults, nothing saved yet).
    await expect.poll(() => previewPixel(10, 300), { timeout: 10_000 }).toBe('#0F172A');

    await page.locator('#theme-background').fill('#FEF3C7');
    await page.locator('#theme-text').fill('#1F2937');
    await expect.poll(() => previewPixel(10, 300), { timeout: 10_000 }).toBe('#FEF3C7');
    // The colour picker drives its text field and the preview too.
    await page.locator('#theme-accent-picker').fill('#d97706');
    expect(await page.locator('#theme-accent').inputValue()).toBe('#D97706');
    await expect.poll(() => previewPixel(10, 10), { timeout: 10_000 }).toBe('#D97706');
    await page.getByLabel('Font', { exact: true }).selectOption('serif');
    await expect
      .poll(() => page.locator('#theme-status').textContent())
      .toBe('Preview up to date (not saved)');
    expect(await t.modules.themes.read(accountId)).toBeUndefined();

    // Another size redraws at that size.
    await page.getByLabel('Size').selectOption('square');
    await expect
      .poll(() =>
        page
          .locator('#theme-preview')
          .evaluate((el) => (el as unknown as { naturalHeight: number }).naturalHeight),
      )
      .toBe(1080);
    await page.getByLabel('Size').selectOption('og');
    await expect
      .poll(() =>
        page
          .locator('#theme-preview')
          .evaluate((el) => (el as unknown as { naturalHeight: number }).naturalHeight),
      )
      .toBe(630);
    await expect.poll(() => previewPixel(10, 300), { timeout: 10_000 }).toBe('#FEF3C7');
    // A logo file is stored at once and drawn in the preview; the unsaved colours stay.
    const logo = await sharp({
      create: { width: 256, height: 256, channels: 4, background: { r: 124, g: 58, b: 237, alpha: 1 } },
    })
      .png()
      .toBuffer();
    await page
      .locator('#theme-logo-file')
      .setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: logo });
    await expect
      .poll(() => page.locator('#theme-logo-size').textContent(), { timeout: 10_000 })
      .toBe('256 × 256 PNG');
    await expect.poll(() => previewPixel(1200 - 40 - 32, 630 - 40 - 32), { timeout: 10_000 }).toBe('#7C3AED');
    expect(await page.locator('#theme-background').inputValue()).toBe('#FEF3C7');
    expect(await previewPixel(10, 300)).toBe('#FEF3C7');
    expect((await t.modules.themes.read(accountId))?.background).toBe('#0F172A');
    // The picture for the docs shows a built-in design that draws themes, when there is one.
    const builtin = await page
      .locator('#theme-template option[data-themed="1"]')
      .first()
      .getAttribute('value');
    if (builtin && builtin !== 'themed') {
      const drawn = await page.locator('#theme-preview').getAttribute('data-drawn');
      await page.getByLabel('Template').selectOption(builtin);
      await expect
        .poll(() => page.locator('#theme-preview').getAttribute('data-drawn'), { timeout: 10_000 })
        .not.toBe(drawn);
      await expect
        .poll(() => page.locator('#theme-status').textContent())
        .toBe('Preview up to date (not saved)');
    }
    const height = await page.evaluate<number>('document.documentElement.scrollHeight');
    await page.setViewportSize({ width: 1360, height });
    const buf = await page.screenshot({ path: path.join(shotsDir, 'dashboard-theme.png'), fullPage: true });
    expect(pngSize(buf).width).toBe(1360);
    await page.setViewportSize({ width: 1360, height: 900 });

    await Promise.all([
      page.waitForURL(`${url}/dashboard/theme?notice=saved`),
      page.getByRole('button', { name: 'Save theme' }).click(),
    ]);
    expect(await page.getByRole('status').first().textContent()).toBe(
      'Theme saved. Cards drawn from now on use it.',
    );
    await page.reload();
    await page.getByLabel('Template').selectOption('themed');
    expect(await page.locator('#theme-background').inputValue()).toBe('#FEF3C7');
    expect(await page.locator('#theme-accent').inputValue()).toBe('#D97706');
    expect(await page.getByLabel('Font', { exact: true }).inputValue()).toBe('serif');
    await expect.poll(() => previewPixel(10, 300), { timeout: 10_000 }).toBe('#FEF3C7');
    expect(await t.modules.themes.get(accountId)).toMatchObject({
      background: '#FEF3C7',
      text: '#1F2937',
      accent: '#D97706',
      font: 'serif',
      logo: { width: 256, height: 256 },
    });
  });

  it('uploads a font from the page, shows why a broken one is refused, and offers the family', async () => {
    const broken = hostileFonts()[0]!;
    await page.locator('#theme-font-file').setInputFiles({
      name: 'broken.ttf',
      mimeType: 'font/ttf',
      buffer: broken.file,
    });
    await expect
      .poll(() => page.locator('#theme-font-error').textContent(), { timeout: 15_000 })
      .toBe(broken.reason);
    await page.getByLabel('Family name').fill('Page Serif');
    await Promise.all([
      page.waitForURL(`${url}/dashboard/theme?notice=font-added`, { timeout: 15_000 }),
      page
        .locator('#theme-font-file')
        .setInputFiles({ name: 'serif.woff2', mimeType: 'font/woff2', buffer: serifWoff2() }),
    ]);
    expect(await page.getByRole('status').first().textContent()).toMatch(/^Font uploaded\./);
    expect(await page.locator('table.fonts tbody tr td').first().textContent()).toBe('Page Serif');
    await page.getByLabel('Your font').selectOption('Page Serif');
    expect(await page.getByLabel('Your font').inputValue()).toBe('Page Serif');
    await page.goto(`${url}/dashboard/theme`);
  });

  it('explains a low contrast in the page, and had no script errors or CSP violations', async () => {
    await page.locator('#theme-text').fill('#FFF8E1');
    await expect
      .poll(() => page.locator('#theme-error').textContent(), { timeout: 10_000 })
      .toMatch(
        /^text colour #FFF8E1 on background #FEF3C7 has a contrast ratio of 1\.\d\d:1; at least 3:1 is needed/,
      );
    expect(problems, problems.join('\n')).toEqual([]);
  });
});
