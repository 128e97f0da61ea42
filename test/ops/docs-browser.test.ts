// @module-tag chromium
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable, launchChromium } from '../helpers/browser.js';

describe.skipIf(!chromiumAvailable())('interactive API docs in a real browser', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    t = await startTestApp();
    base = await t.listen();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('loads every asset from the service itself, breaks no CSP rule, and lists every operation', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const requested: string[] = [];
    const problems: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    page.on('requestfailed', (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' || /Content Security Policy/i.test(m.text()))
        problems.push(`console: ${m.text()}`);
    });
    const res = await page.goto(`${base}/docs`, { waitUntil: 'load' });
    expect(res?.status()).toBe(200);
    await page.waitForSelector('.opblock', { timeout: 20_000 });

    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { summary: string }>>;
    };
    const operations = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.entries(ops).map(([method, op]) => ({
        method: method.toUpperCase(),
        path: p,
        summary: op.summary,
      })),
    );
    const shown = await page.$$eval('.opblock', (blocks) =>
      blocks.map((b) => ({
        method: b.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '',
        path: b.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '',
        summary: b.querySelector('.opblock-summary-description')?.textContent?.trim() ?? '',
      })),
    );
    expect(shown.length).toBe(operations.length);
    expect(new Set(shown.map((s) => `${s.method} ${s.path} ${s.summary}`))).toEqual(
      new Set(operations.map((o) => `${o.method} ${o.path} ${o.summary}`)),
    );
    expect(await page.title()).toBe('Cardshot API');
    // The three ways to authenticate are offered in the Authorize dialog.
    await page.click('.btn.authorize');
    const schemes = await page.$$eval('.auth-container h4', (h) => h.map((x) => x.textContent?.trim() ?? ''));
    expect(schemes.join(' ')).toMatch(/apiKeyHeader.*apiKeyQuery.*signedUrlKeyId/s);

    expect(problems).toEqual([]);
    expect(requested.length).toBeGreaterThan(4);
    const foreign = requested.filter((u) => !u.startsWith(`${base}/`) && !u.startsWith('data:'));
    expect(foreign).toEqual([]);
    await context.close();
  }, 60_000);

  it('"Try it out" shows the PNG it fetched (the CSP lets the blob: image through)', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
    });
    await page.goto(`${base}/docs`, { waitUntil: 'load' });
    await page.click('.btn.authorize');
    await page.locator('.auth-container').first().locator('input').fill(t.key.key);
    await page.locator('.auth-container').first().locator('button.authorize').click();
    await page.click('.btn-done');
    const op = page.locator('.opblock-get', { has: page.locator('[data-path="/render/template"]') });
    await op.locator('.opblock-summary').click();
    await op.locator('.try-out__btn').click();
    await op
      .locator('tr[data-param-name="template"] select, tr[data-param-name="template"] input')
      .first()
      .evaluate((el) => {
        const input = el as unknown as { value: string; dispatchEvent(e: unknown): boolean };
        input.value = 'blog';
        input.dispatchEvent(new Event('change', { bubbles: true }));
      });
    await op.locator('tr[data-param-name="title"] input').fill('Hello from the docs');
    await op.locator('.execute').click();
    const img = op.locator('.live-responses-table img');
    await img.waitFor({ timeout: 20_000 });
    expect(await img.getAttribute('src')).toMatch(/^blob:/);
    await expect
      .poll(() => img.evaluate((i) => (i as unknown as { naturalWidth: number }).naturalWidth), {
        timeout: 10_000,
      })
      .toBe(1200);
    expect(violations).toEqual([]);
    await context.close();
  }, 60_000);
});
