// @module-tag chromium
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable, launchChromium, signInPage, watchProblems } from '../helpers/browser.js';
import { PASSWORD } from '../helpers/dashboard.js';
import { type SmallBlog, startSmallBlog } from '../helpers/sites-ui-site.js';

// The Sites pages in Chromium against the real server (its queue, renderer and /og) and a small
// blog on 127.0.0.1: register a site by the form, the card of a page drawn in the page, the tag
// copied, a warm followed live to its end, no CSP violation, and 390 px without sideways
// scrolling. `npm run docs:screens` sets CARDSHOT_SCREENS_DIR=docs/img to keep the shot
// docs/sites.md shows.

const screensDir = process.env.CARDSHOT_SCREENS_DIR;

/** The parts of an <img> the test reads (the project compiles without DOM types). */
interface LoadedImage {
  complete: boolean;
  naturalWidth: number;
}

describe.runIf(chromiumAvailable())('Sites pages in Chromium', () => {
  let t: TestApp;
  let blog: SmallBlog;
  let base: string;
  let browser: Browser;
  let page: Page;
  let shots: string;
  const problems: string[] = [];

  beforeAll(async () => {
    shots = screensDir ?? (await mkdtemp(path.join(os.tmpdir(), 'cardshot-sites-screens-')));
    blog = await startSmallBlog();
    t = await startTestApp({ allowPrivateHosts: [blog.hostPort], jobsWorkers: 1 });
    base = await t.listen();
    await t.modules.accounts.credentials.setPassword(t.account.id, PASSWORD);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    page = await context.newPage();
    watchProblems(page, problems, { ignoreFailedLoads: true });
    await signInPage(page, base, t.account.email, PASSWORD);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await blog?.close();
    if (!screensDir && shots) await rm(shots, { recursive: true, force: true });
  });

  it('registers a site, draws a page’s card, copies its tag and warms it live', async () => {
    await page.getByRole('link', { name: 'Sites' }).click();
    await page.waitForURL(`${base}/dashboard/sites`);
    await page.getByLabel('Origins').fill(blog.url);
    await page.getByLabel('Template').selectOption('blog');
    await page.getByLabel('Fallback title').fill('Small Blog');
    await page.getByLabel('Name').fill('Small Blog');
    await Promise.all([
      page.waitForURL(/\/dashboard\/sites\/site_\w+\?notice=created$/),
      page.getByRole('button', { name: 'Register site' }).click(),
    ]);
    const id = /site_\w+/.exec(page.url())![0];

    await page.getByLabel('Path or URL of a page').fill('/blog/post-1');
    await Promise.all([page.waitForURL(/path=/), page.getByRole('button', { name: 'Show' }).click()]);
    const img = page.getByRole('img', { name: 'The card of /blog/post-1' });
    await expect
      .poll(() => img.evaluate((i) => ((i as LoadedImage).complete ? (i as LoadedImage).naturalWidth : 0)), {
        timeout: 20_000,
      })
      .toBe(1200);
    await page.locator('[data-copy="site-tag"]').click();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(
      `<meta property="og:image" content="${base}/og/${id}/blog/post-1">`,
    );

    await page.evaluate('window.__sameDocument = true');
    await Promise.all([page.waitForURL(/\?job=job_/), page.getByRole('button', { name: 'Warm' }).click()]);
    await page.evaluate('window.__sameDocument = true');
    await page.locator('#warm-live .badge', { hasText: 'Completed' }).waitFor({ timeout: 30_000 });
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    await expect.poll(() => page.locator('#warm-live').textContent()).toContain('3 of 3 pages warmed');

    await page.getByLabel('Path or URL of a page').fill('/blog/post-2');
    await Promise.all([page.waitForURL(/path=/), page.getByRole('button', { name: 'Show' }).click()]);
    await expect
      .poll(() =>
        page
          .getByRole('img', { name: 'The card of /blog/post-2' })
          .evaluate((i) => (i as LoadedImage).naturalWidth),
      )
      .toBe(1200);
    // As tall as the page, so the sidebar stays at the top of the picture.
    const height = await page.evaluate<number>('document.documentElement.scrollHeight');
    await page.setViewportSize({ width: 1360, height });
    await page.screenshot({ path: path.join(shots, 'dashboard-sites.png'), fullPage: true });
    await page.setViewportSize({ width: 1360, height: 900 });
    expect(page.url()).toContain('job=job_');
    expect(problems).toEqual([]);
  }, 90_000);

  it('fits the pages in 390 px without sideways scrolling', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
    await phone.context().addCookies(await page.context().cookies());
    for (const url of ['/dashboard/sites', page.url().replace(base, '')]) {
      await phone.goto(`${base}${url}`);
      expect(
        await phone.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth'),
        url,
      ).toBe(0);
    }
    await phone.close();
  });
});
