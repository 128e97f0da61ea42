// @module-tag chromium
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/storage/store.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable, launchChromium } from '../helpers/browser.js';
import { PASSWORD, seedUsage } from '../helpers/dashboard.js';
import { expectError } from '../helpers/errors.js';
import { pngSize } from '../helpers/png.js';

// The dashboard in a real browser against the real server on 127.0.0.1. Every page is also
// screenshotted; `npm run docs:screens` sets CARDSHOT_SCREENS_DIR=docs/img to keep them.
const run = chromiumAvailable();

/** The parts of a <canvas> the tests use to read a preview's pixels. */
interface Canvas {
  width: number;
  height: number;
  getContext(kind: '2d'): {
    drawImage(image: unknown, x: number, y: number): void;
    getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> };
  };
}

/** The parts of an <img> the tests read (the project compiles without DOM types). */
interface LoadedImage {
  complete: boolean;
  naturalWidth: number;
  naturalHeight: number;
}
const screensDir = process.env.CARDSHOT_SCREENS_DIR;

describe.runIf(run)('dashboard in Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let account: Account;
  let shotsDir: string;
  let attacker: Server;
  let site: Server;
  let siteUrl: string;
  const problems: string[] = [];
  let createdKey = '';

  const shot = async (name: string, p: Page = page) => {
    const file = path.join(shotsDir, `dashboard-${name}.png`);
    const buf = await p.screenshot({ path: file, fullPage: true });
    expect(pngSize(buf).width).toBeGreaterThan(300);
  };

  /** A page taller than the window, shot in a window as tall as it, so the sidebar stays on top. */
  const tallShot = async (name: string) => {
    const height = await page.evaluate<number>('document.documentElement.scrollHeight');
    await page.setViewportSize({ width: 1360, height });
    await shot(name);
    await page.setViewportSize({ width: 1360, height: 900 });
  };

  beforeAll(async () => {
    shotsDir = screensDir ?? (await mkdtemp(path.join(os.tmpdir(), 'cardshot-screens-')));
    await mkdir(shotsDir, { recursive: true });
    // A small product page on loopback for the screenshot playground to capture.
    site = createServer((_req, res) => {
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.end(SITE_PAGE);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}/`;
    t = await startTestApp({ keyCacheSeconds: 0, allowPrivateHosts: [new URL(siteUrl).host] });
    base = await t.listen();

    const { accounts, credentials, store } = t.modules.accounts;
    account = await accounts.createAccount({ name: 'Acme Inc', email: 'ops@acme.test', plan: 'pro' });
    await credentials.setPassword(account.id, PASSWORD);
    const now = Date.now();
    await seedUsage(store, account.id, now);
    const website = await accounts.createKey({
      accountId: account.id,
      name: 'Marketing site',
      environment: 'production',
    });
    await store.touchKeys([{ id: website.record.id, at: now - 4 * 60_000 }]);
    const staging = await accounts.createKey({
      accountId: account.id,
      name: 'Staging',
      environment: 'staging',
    });
    await store.touchKeys([{ id: staging.record.id, at: now - 26 * 3_600_000 }]);
    const ci = await accounts.createKey({ accountId: account.id, name: 'Old CI runner', environment: 'ci' });
    await accounts.revokeKey(ci.record.id);

    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1360, height: 900 }, deviceScaleFactor: 1 });
    page = await context.newPage();
    // A CSP violation, a script error or a failed asset shows up here and fails the last test.
    // (Pages answered 4xx on purpose log "Failed to load resource"; those are not problems.)
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource'))
        problems.push(`console: ${m.text()}`);
    });
    page.on('response', (r) => {
      if (r.url().includes('/dashboard/assets/') && r.status() >= 400)
        problems.push(`asset ${r.status()}: ${r.url()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));

    // A page on another origin (same site: 127.0.0.1, another port) that posts to the dashboard.
    attacker = createServer((req, res) => {
      res.setHeader('Content-Type', 'text/html');
      res.end(`<!doctype html><form id="f" method="post" action="${base}/dashboard/keys">
<input name="name" value="Forged"><input name="environment" value="production"><input name="expires" value="">
<input name="once" value="forged-once"><input name="_csrf" value="${req.url?.includes('token') ? 'guessed-token-value' : ''}">
</form><script>document.getElementById('f').submit()</script>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => attacker?.close(resolve));
    await new Promise((resolve) => site?.close(resolve));
    await t?.close();
    if (!screensDir && shotsDir) await rm(shotsDir, { recursive: true, force: true });
  });

  it('sends a visitor to sign-in, and refuses a wrong password with the generic message', async () => {
    await page.goto(`${base}/dashboard/keys`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    await shot('sign-in');
    await page.getByLabel('Email').fill('ops@acme.test');
    await page.getByLabel('Password').fill('not my password');
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    expect(res.status()).toBe(401);
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Email or password is incorrect');
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    expect(await page.getByLabel('Email').inputValue()).toBe('ops@acme.test');
  });

  it('signs in with the right password and lands where the visitor was going', async () => {
    await page.getByLabel('Password').fill(PASSWORD);
    await Promise.all([
      page.waitForURL(`${base}/dashboard/keys`),
      page.getByLabel('Password').press('Enter'),
    ]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('API keys');
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'cardshot_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
  });

  it('shows usage, plan and budget on the overview', async () => {
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.waitForURL(`${base}/dashboard`);
    expect(await page.locator('.chart svg rect.bar-template').count()).toBe(30);
    expect(await page.locator('.chart svg rect.bar-screenshot').count()).toBe(30);
    expect(await page.locator('.badge.plan').textContent()).toBe('pro');
    expect(await page.locator('.budget-value').textContent()).toBe('600 of 600');
    await shot('overview');
  });

  it('creates a key, shows it once with copy buttons; after a reload it is gone', async () => {
    await page.goto(`${base}/dashboard/keys`);
    await shot('keys');
    await page.getByLabel('Name').fill('Production server');
    await page.getByLabel('Environment').selectOption('production');
    await Promise.all([
      page.waitForLoadState('load'),
      page.getByRole('button', { name: 'Create key' }).click(),
    ]);
    createdKey = (await page.locator('#new-key').textContent()) ?? '';
    expect(createdKey).toMatch(/^cs_production_[0-9A-Za-z]{28}$/);
    expect(await page.locator('#new-secret').textContent()).toMatch(/^cssig_[\w-]{43}$/);
    const panel = page.locator('#new-key-panel');
    expect(
      await panel
        .getByText('Never put a key in front-end scripts, mobile apps or public repositories')
        .count(),
    ).toBe(1);
    expect(
      await panel.getByText('This is the only time the key and its signing secret are shown.').count(),
    ).toBe(1);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await page.locator('button[data-copy="new-key"]').click();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(createdKey);
    await expect.poll(() => page.locator('button[data-copy="new-key"]').textContent()).toBe('Copied');
    await shot('key-created');

    await page.reload();
    await page.waitForLoadState('load');
    const html = await page.content();
    expect(html).not.toContain(createdKey);
    expect(html).not.toContain('cssig_');
    expect(await page.locator('#new-key').count()).toBe(0);
    await page.goto(`${base}/dashboard/keys`);
    expect(await page.content()).not.toContain(createdKey);
    // Exactly one key was created, whatever the reload re-sent.
    const keys = await t.store.listKeys(account.id);
    expect(keys.filter((k) => k.name === 'Production server')).toHaveLength(1);
  });

  it('the key works against /render/template; once revoked in the panel it gets 401', async () => {
    const card = `${base}/render/template?template=saas&title=${encodeURIComponent('Made with a dashboard key')}`;
    const ok = await fetch(card, { headers: { 'x-api-key': createdKey } });
    expect(ok.status).toBe(200);
    expect(pngSize(Buffer.from(await ok.arrayBuffer()))).toEqual({ width: 1200, height: 630 });

    const row = page.locator('tr', { hasText: 'Production server' });
    await row.getByRole('link', { name: 'Revoke Production server' }).click();
    await page.waitForURL(/\/revoke$/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Revoke “Production server”?');
    await Promise.all([
      page.waitForURL(`${base}/dashboard/keys?notice=revoked`),
      page.getByRole('button', { name: 'Revoke key' }).click(),
    ]);
    expect(await page.locator('tr', { hasText: 'Production server' }).locator('.badge.revoked').count()).toBe(
      1,
    );

    const refused = await fetch(card, { headers: { 'x-api-key': createdKey } });
    await expectError(refused, 401, 'Missing or invalid API key');
  });

  it('refuses a forged cross-origin POST without (or with a guessed) CSRF token', async () => {
    const before = (await t.store.listKeys(account.id)).length;
    const evil = await context.newPage();
    const attackerBase = `http://127.0.0.1:${(attacker.address() as { port: number }).port}`;
    for (const url of [`${attackerBase}/`, `${attackerBase}/token`]) {
      const [res] = await Promise.all([
        evil.waitForResponse((r) => r.url() === `${base}/dashboard/keys` && r.request().method() === 'POST'),
        evil.goto(url),
      ]);
      expect(res.status()).toBe(403);
      await evil.waitForLoadState('load');
      expect(await evil.content()).toContain('This form has expired or did not come from this dashboard');
    }
    await evil.close();
    // The same POST from the dashboard's own origin but without the token is refused too.
    const direct = await page.evaluate(async () => {
      const r = await fetch('/dashboard/keys', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'name=Forged&environment=production&expires=&once=x',
      });
      return r.status;
    });
    expect(direct).toBe(403);
    expect((await t.store.listKeys(account.id)).length).toBe(before);
  });

  it('the playground renders the card live from the real endpoint (a 1200×630 PNG)', async () => {
    await page.goto(`${base}/dashboard/playground`);
    const img = page.locator('#pg-preview');
    await expect
      .poll(() =>
        img.evaluate(
          (el) => (el as unknown as LoadedImage).complete && (el as unknown as LoadedImage).naturalWidth,
        ),
      )
      .toBe(1200);
    await page.getByLabel('Template').selectOption('product');
    await page.getByLabel('Title', { exact: true }).fill('Meet the new Aurora headphones');
    await page
      .getByLabel('Subtitle')
      .fill('40-hour battery, spatial audio and a case that fits in your pocket.');
    await page.getByLabel('Brand').fill('Acme Audio');
    await expect
      .poll(() => img.getAttribute('src'), { timeout: 10_000 })
      .toContain('title=Meet%20the%20new%20Aurora%20headphones');
    await expect
      .poll(
        () =>
          img.evaluate((el) => {
            const i = el as unknown as LoadedImage;
            return [i.complete, i.naturalWidth, i.naturalHeight];
          }),
        {
          timeout: 10_000,
        },
      )
      .toEqual([true, 1200, 630]);
    // The <img> bytes are the real endpoint's PNG.
    const src = (await img.getAttribute('src'))!;
    const res = await page.request.get(`${base}${src}`);
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toBe('image/png');
    expect(pngSize(await res.body())).toEqual({ width: 1200, height: 630 });
    const meta = (await page.locator('#pg-meta').textContent())!;
    expect(meta).toMatch(
      /^<meta property="og:image" content="http:\/\/127\.0\.0\.1:\d+\/render\/template\?template=product&amp;title=Meet%20the%20new%20Aurora%20headphones&amp;/,
    );
    expect(await page.locator('#pg-curl').textContent()).toContain(
      '"title":"Meet the new Aurora headphones"',
    );
    await expect.poll(() => page.locator('#pg-status').textContent()).toBe('Up to date');
    await shot('playground');

    // A field the API refuses is explained in the page, not as a broken image.
    await page.getByLabel('Title', { exact: true }).fill('');
    await expect.poll(() => page.locator('#pg-error').textContent()).toBe('title must not be empty');
  });

  it('the screenshot playground captures a page through the real endpoint on Capture', async () => {
    await page.goto(`${base}/dashboard/playground`);
    await Promise.all([
      page.waitForURL(`${base}/dashboard/playground/screenshot`),
      page.getByRole('link', { name: 'Screenshots' }).click(),
    ]);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Screenshot playground');
    await page.getByLabel('Page URL').fill(siteUrl);
    await page.getByLabel('Viewport').selectOption('desktop');
    // The snippets follow the form as it changes; nothing is captured before Capture.
    const q = `url=${encodeURIComponent(siteUrl)}&viewport=desktop`;
    await expect
      .poll(() => page.locator('#shot-signed').textContent())
      .toMatch(
        new RegExp(
          `^http://127\\.0\\.0\\.1:\\d+/render/url\\?${q.replace(/[.?%]/g, '\\$&')}&kid=key_\\w+&exp=\\d+&sig=[\\w-]{43}$`,
        ),
      );
    expect(await page.locator('#shot-curl').textContent()).toContain(`/render/url?${q}' \\\n  -o page.png`);
    expect(await page.locator('#shot-status').textContent()).toBe('Press Capture to take the screenshot');
    expect(await page.locator('#shot-preview').isHidden()).toBe(true);

    await page.getByRole('button', { name: 'Capture' }).click();
    await expect
      .poll(() => page.locator('#shot-facts').textContent(), { timeout: 30_000 })
      .toMatch(/^1280 × 800 · PNG · [\d.]+ KB · MISS · [\d.]+ s$/);
    expect(await page.locator('#shot-status').textContent()).toBe('Up to date');
    // The preview's own pixels: the page's header band, then its hero.
    const pixel = (x: number, y: number) =>
      page.locator('#shot-preview').evaluate(
        (el, [px, py]) => {
          const img = el as unknown as { naturalWidth: number; naturalHeight: number };
          const doc = (globalThis as unknown as { document: { createElement(t: 'canvas'): Canvas } })
            .document;
          const canvas = doc.createElement('canvas');
          canvas.width = img.naturalWidth;
          canvas.height = img.naturalHeight;
          const ctx = canvas.getContext('2d');
          ctx.drawImage(el, 0, 0);
          return Array.from(ctx.getImageData(px, py, 1, 1).data);
        },
        [x, y] as const,
      );
    expect(await pixel(20, 20)).toEqual([17, 24, 39, 255]);
    expect(await pixel(20, 300)).toEqual([238, 242, 255, 255]);
    await tallShot('screenshot-playground');

    // A request the API refuses is explained in the page.
    await page.getByLabel('Page URL').fill('http://169.254.169.254/latest/meta-data/');
    await page.getByRole('button', { name: 'Capture' }).click();
    await expect
      .poll(() => page.locator('#shot-error').textContent(), { timeout: 15_000 })
      .toBe('url points to an address that is not allowed');
  });

  it('captures with options: full page, dark mode, WebP at quality 80', async () => {
    await page.goto(
      `${base}/dashboard/playground/screenshot?url=${encodeURIComponent(siteUrl)}&viewport=desktop`,
    );
    await page.getByLabel('Full page').check();
    await page.getByLabel('Dark mode').check();
    await page.getByLabel('Format').selectOption('webp');
    await page.getByLabel('Quality').fill('80');
    await page.getByLabel('Hide elements').fill('.banner');
    await expect
      .poll(() => page.locator('#shot-signed').textContent())
      .toContain(
        '&viewport=desktop&fullPage=true&darkMode=true&hideSelectors=.banner&format=webp&quality=80&kid=',
      );
    await page.getByRole('button', { name: 'Capture' }).click();
    await expect
      .poll(() => page.locator('#shot-facts').textContent(), { timeout: 30_000 })
      .toMatch(/^1280 × 2000 · WEBP · [\d.]+ KB · MISS · [\d.]+ s$/);
    expect(await page.locator('#shot-note').textContent()).toBe('The whole page: 2000 px tall.');
    await tallShot('screenshot-playground');

    // "Capture again" reaches the server and captures anew, past the browser's own cache.
    const captures = () =>
      t.logs.filter((l) => l.route === '/render/url' && l.status === 200 && l.cache === 'MISS').length;
    const before = captures();
    await page.getByLabel('Capture again').check();
    // The preview captures again; the URL for publishing leaves it out (issue 26 §3) and says so.
    await expect
      .poll(() => page.locator('#shot-signed-hint').textContent())
      .toContain('"Capture again" is left out of it');
    expect(await page.locator('#shot-signed').textContent()).not.toContain('fresh=');
    await page.getByRole('button', { name: 'Capture' }).click();
    await expect.poll(captures, { timeout: 30_000 }).toBe(before + 1);
    await expect.poll(() => page.locator('#shot-status').textContent()).toBe('Up to date');
  });

  it('is keyboard-usable: the first Tab reaches the skip link, then the navigation', async () => {
    await page.goto(`${base}/dashboard`);
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string | null>('document.activeElement?.textContent')).toBe('Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string | null>("document.activeElement?.getAttribute('href')")).toBe(
      '/dashboard',
    );
  });

  it('fits a phone screen, and unknown paths get the friendly 404 page', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
    await phone.context().addCookies(await context.cookies());
    // Every signed-in page, the keys table included: nothing may scroll sideways at 390 px.
    for (const pathname of [
      '/dashboard',
      '/dashboard/keys',
      '/dashboard/playground',
      '/dashboard/playground/screenshot',
    ]) {
      await phone.goto(`${base}${pathname}`);
      const overflow = await phone.evaluate<number>(
        'document.documentElement.scrollWidth - window.innerWidth',
      );
      expect(overflow, pathname).toBeLessThanOrEqual(0);
    }
    await phone.goto(`${base}/dashboard`);
    await shot('mobile', phone);
    await phone.goto(`${base}/dashboard/keys`);
    await shot('mobile-keys', phone);
    await phone.close();
    const res = await page.goto(`${base}/dashboard/billing`);
    expect(res?.status()).toBe(404);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Page not found');
    await shot('not-found');
  });

  it('signs out, and had no script errors or CSP violations on any page', async () => {
    await page.goto(`${base}/dashboard`);
    await Promise.all([
      page.waitForURL(/signed-out=1/),
      page.getByRole('button', { name: 'Sign out' }).click(),
    ]);
    expect(await page.getByRole('status').textContent()).toBe('You have signed out.');
    await page.goto(`${base}/dashboard/keys`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    expect(problems, problems.join('\n')).toEqual([]);
  });
});

/**
 * A product page for the screenshot playground: a dark header band, a light hero, 2000 px tall
 * in all, a banner to hide, and a dark scheme under prefers-color-scheme: dark.
 */
const SITE_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Northwind Analytics</title><style>
html,body{margin:0;font-family:system-ui,sans-serif}
body{height:2000px;background:#eef2ff;color:#111827}
header{height:64px;background:#111827;color:#fff;display:flex;align-items:center;padding:0 40px;font-weight:700;font-size:20px}
.banner{background:#fde68a;padding:10px 40px;font-size:14px}
main{padding:80px 40px;max-width:760px}
h1{font-size:52px;line-height:1.1;margin:0 0 20px}
p{font-size:20px;line-height:1.5;color:#374151}
.cta{display:inline-block;margin-top:24px;background:#4f46e5;color:#fff;padding:14px 26px;border-radius:10px;font-weight:600}
.chart{position:absolute;right:60px;top:150px;width:380px;height:240px;display:flex;align-items:flex-end;gap:14px;padding:20px;background:#fff;border-radius:16px;box-shadow:0 10px 30px rgb(0 0 0 / .08)}
.chart i{flex:1;background:#6366f1;border-radius:6px 6px 0 0}
@media (prefers-color-scheme: dark){body{background:#0b1020;color:#e5e7eb}p{color:#9ca3af}.chart{background:#111827}}
</style></head><body><header>Northwind Analytics</header><div class="banner">We use cookies to improve your experience.</div>
<main><h1>Dashboards your whole team will actually read</h1><p>Connect your data in minutes, share live reports, and get a Monday summary that fits on one screen.</p><span class="cta">Start free trial</span></main>
<div class="chart"><i style="height:40%"></i><i style="height:65%"></i><i style="height:50%"></i><i style="height:80%"></i><i style="height:95%"></i></div>
</body></html>`;
