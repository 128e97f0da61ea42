// @module-tag chromium
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable, launchChromium, signInPage } from '../helpers/browser.js';
import { PASSWORD, seedUsage } from '../helpers/dashboard.js';

// The dashboard on a 390 px phone, in Chromium against the real server: every navigation entry
// on screen and clickable (Theme was pushed off-screen into a hidden scroller), the keys table's
// cells and its Rotate/Revoke buttons on screen without scrolling sideways, chart labels at a
// readable size. Screenshots go to CARDSHOT_MOBILE_SCREENS_DIR when it is set, to look at.

const WIDTH = 390;
const screensDir = process.env.CARDSHOT_MOBILE_SCREENS_DIR;

/** The box of an element in CSS pixels, and whether the point at its centre hits it. */
interface Placed {
  text: string;
  left: number;
  right: number;
  width: number;
  height: number;
  hit: boolean;
}

/** The parts of a DOM element and of the window the tests read (the project has no DOM types). */
interface El {
  textContent: string | null;
  getBoundingClientRect(): { left: number; right: number; top: number; width: number; height: number };
  contains(other: unknown): boolean;
}
interface Win {
  document: { elementFromPoint(x: number, y: number): unknown };
  scrollY: number;
  scrollTo(x: number, y: number): void;
  getComputedStyle(el: El, pseudo: string): { content: string };
}

/**
 * Where each element matching `selector` is, after scrolling the window (only the window: a
 * scroller inside the page would bring a clipped element into view and hide the fault) so the
 * element is 200 px from the top.
 */
async function placed(page: Page, selector: string): Promise<Placed[]> {
  const out: Placed[] = [];
  for (const el of await page.locator(selector).all()) {
    out.push(
      await el.evaluate((node: El) => {
        const win = globalThis as unknown as Win;
        win.scrollTo(0, win.scrollY + node.getBoundingClientRect().top - 200);
        const r = node.getBoundingClientRect();
        const at = win.document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return {
          text: String(node.textContent).trim(),
          left: r.left,
          right: r.right,
          width: r.width,
          height: r.height,
          hit: at !== null && (node === at || node.contains(at)),
        };
      }),
    );
  }
  return out;
}

describe.runIf(chromiumAvailable())('the dashboard at 390 px', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let shots: string;

  const shot = (name: string) => page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    shots = screensDir ?? (await mkdtemp(path.join(os.tmpdir(), 'cardshot-mobile-')));
    await mkdir(shots, { recursive: true });
    t = await startTestApp({ keyCacheSeconds: 0 });
    base = await t.listen();
    const { accounts, credentials, store } = t.modules.accounts;
    await credentials.setPassword(t.account.id, PASSWORD);
    await seedUsage(store, t.account.id, Date.now());
    // Every kind of row: active, rotated (in its grace period, so Revoke only), revoked, and a
    // long name that must wrap rather than widen the table. The list is newest first by the
    // millisecond: each key is made in a later one than the last, so the order is the one below.
    const nextMs = () => new Promise((resolve) => setTimeout(resolve, 3));
    await nextMs();
    const site = await accounts.createKey({
      accountId: t.account.id,
      name: 'Marketing site and the newsletter renderer',
      environment: 'production',
    });
    await nextMs();
    await accounts.rotateKey(site.record.id, 86_400_000);
    await nextMs();
    const ci = await accounts.createKey({ accountId: t.account.id, name: 'Old CI', environment: 'ci' });
    await accounts.revokeKey(ci.record.id);

    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: WIDTH, height: 844 }, deviceScaleFactor: 2 });
    await signInPage(page, base, t.account.email, PASSWORD);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (!screensDir && shots) await rm(shots, { recursive: true, force: true });
  });

  it('shows every navigation entry on screen, each clickable, on every page', async () => {
    for (const pathname of [
      '/dashboard',
      '/dashboard/keys',
      '/dashboard/playground',
      '/dashboard/theme',
      '/dashboard/jobs',
      '/dashboard/webhooks',
      '/dashboard/link-preview',
      '/dashboard/storage',
      '/dashboard/sites',
    ]) {
      await page.goto(`${base}${pathname}`);
      await page.evaluate('window.scrollTo(0, 0)');
      const links = await placed(page, 'nav[aria-label="Dashboard"] a');
      expect(links.map((l) => l.text)).toEqual([
        'Overview',
        'API keys',
        'Playground',
        'Link preview',
        'Sites',
        'Theme',
        'Jobs',
        'Webhooks',
        'Storage',
      ]);
      for (const l of links) {
        expect(l.left, `${pathname}: ${l.text}`).toBeGreaterThanOrEqual(0);
        expect(l.right, `${pathname}: ${l.text}`).toBeLessThanOrEqual(WIDTH);
        expect(l.hit, `${pathname}: ${l.text} is covered or clipped`).toBe(true);
      }
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(WIDTH);
    }
    await page.goto(`${base}/dashboard`);
    await Promise.all([
      page.waitForURL(`${base}/dashboard/theme`),
      page.getByRole('link', { name: 'Theme' }).click(),
    ]);
    await shot('mobile-theme');
  });

  it('shows each key’s cells and its Rotate/Revoke buttons on screen, with no sideways scroller', async () => {
    await page.goto(`${base}/dashboard/keys`);
    const buttons = await placed(page, 'table.keys .row-actions a');
    // Newest first: the rotated key's replacement (Rotate, Revoke), the key in its grace period
    // (Revoke only), the test account's own key (Rotate, Revoke); the revoked key has none.
    expect(buttons.map((b) => b.text)).toEqual(['Rotate', 'Revoke', 'Revoke', 'Rotate', 'Revoke']);
    for (const b of buttons) {
      expect(b.left).toBeGreaterThanOrEqual(0);
      expect(b.right).toBeLessThanOrEqual(WIDTH);
      expect(b.height).toBeGreaterThanOrEqual(28);
      expect(b.hit, `${b.text} is covered or clipped`).toBe(true);
    }
    const cells = await placed(page, 'table.keys tbody th, table.keys tbody td:not(:last-child)');
    expect(cells.length).toBe(4 * 6);
    for (const c of cells) {
      expect(c.right, c.text).toBeLessThanOrEqual(WIDTH);
      expect(c.left, c.text).toBeGreaterThanOrEqual(0);
    }
    // Each value says what it is: the column headings are hidden on a phone, so labels show.
    const labels = await page
      .locator('table.keys tbody tr:first-child td[data-label]')
      .evaluateAll((tds: El[]) =>
        tds.map((td) => (globalThis as unknown as Win).getComputedStyle(td, '::before').content),
      );
    expect(labels).toEqual(['"Key"', '"Created"', '"Last used"', '"Expires"', '"Status"']);
    const sideways = await page.evaluate<number>(
      "Math.max(...[...document.querySelectorAll('.table-wrap')].map((w) => w.scrollWidth - w.clientWidth))",
    );
    expect(sideways).toBeLessThanOrEqual(0);
    await shot('mobile-keys');
  });

  it('draws the chart’s day and count labels at least 10 px tall', async () => {
    await page.goto(`${base}/dashboard`);
    const heights = await page
      .locator('.chart svg text')
      .evaluateAll((texts: El[]) => texts.map((x) => x.getBoundingClientRect().height));
    expect(heights.length).toBeGreaterThanOrEqual(5 + 6);
    expect(Math.min(...heights)).toBeGreaterThanOrEqual(10);
    const labels = await placed(page, '.chart svg text');
    for (const l of labels) {
      expect(l.left, l.text).toBeGreaterThanOrEqual(0);
      expect(l.right, l.text).toBeLessThanOrEqual(WIDTH);
    }
    await shot('mobile-overview');
  });
});
