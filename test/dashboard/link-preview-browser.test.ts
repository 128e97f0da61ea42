// @module-tag chromium
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable, launchChromium, signInPage, watchProblems } from '../helpers/browser.js';
import { PASSWORD } from '../helpers/dashboard.js';
import { startUnfurlSite, type UnfurlSite } from '../helpers/unfurl-site.js';

// The Link preview page in Chromium against the real server and the fixture site: nine cards
// drawn with the page's image (through the dashboard's proxy), the Cardshot card offered as the
// fix loads, no CSP violation, and 390 px without sideways scrolling.
// CARDSHOT_LINK_PREVIEW_SCREENS_DIR keeps the screenshots, to look at.

const keepDir = process.env.CARDSHOT_LINK_PREVIEW_SCREENS_DIR;

/** What the test reads of an <img> in the page (the DOM types are not in this project's lib). */
type LoadedImage = { complete: boolean; naturalWidth: number };
type Window = { getComputedStyle(el: unknown): { borderLeftColor: string } };

describe.runIf(chromiumAvailable())('Link preview in Chromium', () => {
  let t: TestApp;
  let site: UnfurlSite;
  let base: string;
  let browser: Browser;
  let page: Page;
  let shots: string;
  const problems: string[] = [];

  beforeAll(async () => {
    shots = keepDir ?? (await mkdtemp(path.join(os.tmpdir(), 'cardshot-lp-screens-')));
    site = await startUnfurlSite();
    t = await startTestApp({ allowPrivateHosts: site.hostPorts }, { unfurlCa: site.ca });
    base = await t.listen();
    await t.modules.accounts.credentials.setPassword(t.account.id, PASSWORD);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    watchProblems(page, problems);
    await signInPage(page, base, t.account.email, PASSWORD);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await site?.close();
    if (!keepDir && shots) await rm(shots, { recursive: true, force: true });
  });

  /** The natural widths of the cards' images once each has loaded (0: it failed). */
  const imageWidths = () =>
    page.evaluate<number[]>(`Promise.all([...document.querySelectorAll('.lp-grid img')].map((img) =>
      img.complete ? img.naturalWidth : new Promise((r) => { img.onload = () => r(img.naturalWidth); img.onerror = () => r(0); })))`);

  it('draws every network’s card for a clean page, with the page’s own image', async () => {
    await page.getByRole('link', { name: 'Link preview' }).click();
    await page.waitForURL(`${base}/dashboard/link-preview`);
    await page.getByLabel('Page URL').fill(`${site.url}/clean`);
    await Promise.all([
      page.waitForURL(/link-preview\?url=/),
      page.getByRole('button', { name: 'Check' }).click(),
    ]);
    await expect(page.locator('.lp-summary-line').textContent()).resolves.toMatch(
      /^0 errors, 0 warnings, 0 notes/,
    );
    expect(await page.locator('.lp-platform').count()).toBe(9);
    // Nine card images from the fixture site, through the dashboard's proxy.
    expect(await imageWidths()).toEqual(Array(9).fill(1200));
    expect(await page.locator('[data-platform="x"] .lp-x-domain').textContent()).toBe(new URL(site.url).host);
    const discordEdge = await page
      .locator('[data-platform="discord"] .lp-discord')
      .evaluate((el) => (globalThis as unknown as Window).getComputedStyle(el).borderLeftColor);
    expect(discordEdge).toBe('rgb(88, 101, 242)');
    await page.screenshot({ path: path.join(shots, 'link-preview-clean.png'), fullPage: true });
    expect(problems).toEqual([]);
  }, 60_000);

  it('offers a Cardshot card that loads when the page has no og:image', async () => {
    await page.goto(`${base}/dashboard/link-preview?url=${encodeURIComponent(`${site.url}/no-image`)}`);
    await expect(page.locator('.lp-summary-line').textContent()).resolves.toMatch(/^1 error, 0 warnings/);
    const card = page.getByAltText('The Cardshot card for this page');
    await expect
      .poll(() =>
        card.evaluate(
          (el) => (el as unknown as LoadedImage).complete && (el as unknown as LoadedImage).naturalWidth,
        ),
      )
      .toBe(1200);
    expect(await page.locator('[data-platform="facebook"] .lp-title').textContent()).toBe(
      'Launch week: five new templates',
    );
    await page.screenshot({ path: path.join(shots, 'link-preview-no-image.png'), fullPage: true });
    expect(problems).toEqual([]);
  }, 60_000);

  it('fits a 390 px wide phone without sideways scrolling', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/dashboard/link-preview?url=${encodeURIComponent(`${site.url}/summary-card`)}`);
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: path.join(shots, 'link-preview-mobile.png'), fullPage: true });
  }, 60_000);
});
