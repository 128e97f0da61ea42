// @module-tag chromium
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUrlGuard } from '../../src/net/url-guard.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable, launchChromium, signInPage, watchProblems } from '../helpers/browser.js';
import { PASSWORD } from '../helpers/dashboard.js';
import { startWebhookReceiver, status, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// The Jobs and Webhooks pages in Chromium against the real server (real queue, renderer and a
// webhook receiver on 127.0.0.1): the flows a customer clicks through, live progress without a
// reload, the zip download, the secret shown once, no CSP violation, and 390 px without sideways
// scrolling. `npm run docs:screens` sets CARDSHOT_SCREENS_DIR=docs/img to keep the two shots
// docs/jobs.md shows; CARDSHOT_JOBS_SCREENS_DIR keeps every shot, to look at.

const screensDir = process.env.CARDSHOT_SCREENS_DIR;
const allShotsDir = process.env.CARDSHOT_JOBS_SCREENS_DIR;
const DOC_SHOTS = new Set(['job-failed-items', 'webhook-deliveries']);

describe.runIf(chromiumAvailable())('Jobs and Webhooks pages in Chromium', () => {
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let page: Page;
  let shots: string;
  let receiver: WebhookReceiver;
  const problems: string[] = [];

  const shot = (name: string, p: Page = page) => {
    const dir = screensDir && DOC_SHOTS.has(name) ? screensDir : shots;
    return p.screenshot({ path: path.join(dir, `dashboard-${name}.png`), fullPage: true });
  };

  /** POST /jobs as the test account; the job id. */
  const submit = async (items: unknown[]) => {
    const res = await t.inject({
      method: 'POST',
      url: '/jobs',
      payload: { items, metadata: { source: 'catalogue' } },
    });
    expect(res.statusCode, res.body).toBe(202);
    return res.json().id as string;
  };
  const cards = (n: number, prefix: string) =>
    Array.from({ length: n }, (_, i) => ({ template: i % 2 ? 'saas' : 'blog', title: `${prefix} ${i + 1}` }));
  const settle = async (id: string) => {
    for (let i = 0; i < 600; i++) {
      const s = (await t.inject({ method: 'GET', url: `/jobs/${id}` })).json().status;
      if (s !== 'queued' && s !== 'running') return;
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  beforeAll(async () => {
    shots = allShotsDir ?? (await mkdtemp(path.join(os.tmpdir(), 'cardshot-jobs-screens-')));
    await mkdir(shots, { recursive: true });
    receiver = await startWebhookReceiver(status(200));
    t = await startTestApp(
      { jobsWorkers: 1 },
      { webhookGuard: createUrlGuard({ allowPrivateHosts: [receiver.hostPort] }) },
    );
    base = await t.listen();
    await t.modules.accounts.credentials.setPassword(t.account.id, PASSWORD);
    // An ended job with a failed item, and a canceled one, for the list.
    await settle(
      await submit([
        ...cards(5, 'Spring catalogue'),
        { template: 'product', title: 'Desk lamp', imageUrl: 'http://127.0.0.1:9/lamp.png' },
      ]),
    );
    const canceled = await submit(cards(30, 'Old batch'));
    await t.inject({ method: 'DELETE', url: `/jobs/${canceled}` });
    await settle(canceled);

    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    watchProblems(page, problems, { ignoreFailedLoads: true });
    await signInPage(page, base, t.account.email, PASSWORD);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver?.close();
    if (!allShotsDir && shots) await rm(shots, { recursive: true, force: true });
  });

  it('follows a running job live (no reload) to its end, then downloads the zip', async () => {
    const id = await submit(cards(150, 'Product card'));
    await page.getByRole('link', { name: 'Jobs' }).click();
    await page.waitForURL(`${base}/dashboard/jobs`);
    await shot('jobs');
    await page.getByRole('link', { name: id }).click();
    await page.waitForURL(`${base}/dashboard/jobs/${id}`);
    await page.evaluate('window.__sameDocument = true');
    await shot('job-running');
    await page.locator('#job-live .badge', { hasText: 'Completed' }).waitFor({ timeout: 30_000 });
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    expect(await page.locator('.job-count').first().textContent()).toBe('150 / 150');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download zip' }).click(),
    ]);
    const file = path.join(shots, 'results.zip');
    await download.saveAs(file);
    expect((await readFile(file)).subarray(0, 2).toString()).toBe('PK');
    await rm(file);
  }, 60_000);

  it('shows a failed item with its reason under the Failed filter', async () => {
    await page.goto(`${base}/dashboard/jobs`);
    await page.locator('tr', { hasText: '1 failed' }).getByRole('link').click();
    await page.getByRole('link', { name: /^Failed/ }).click();
    await expect(page.locator('.item-error').textContent()).resolves.toMatch(/^imageUrl/);
    await shot('job-failed-items');
  });

  it('cancels a running job from its page after confirming', async () => {
    const id = await submit(cards(300, 'Big batch'));
    await page.goto(`${base}/dashboard/jobs/${id}`);
    await page.getByRole('link', { name: 'Cancel job' }).click();
    await page.getByRole('button', { name: 'Cancel job' }).click();
    await page.waitForURL(`${base}/dashboard/jobs/${id}?notice=canceled`);
    expect(await page.locator('[role=status]').textContent()).toBe(
      'The job is canceled: its waiting items will not run.',
    );
    await settle(id);
  }, 30_000);

  it('adds an endpoint (secret once), sends a test, shows the attempt and redelivers', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL(`${base}/dashboard/webhooks`);
    await page.getByLabel('URL').fill(`${receiver.url}/hooks/cardshot`);
    await page.getByLabel(/render\.failed/).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = await page.locator('#new-secret').textContent();
    expect(secret).toMatch(/^whsec_/);
    await shot('webhook-secret');
    await page.getByRole('link', { name: 'I have saved it' }).click();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await receiver.waitFor(1);
    for (let i = 0; i < 40 && (await page.locator('.badge', { hasText: 'Delivered' }).count()) === 0; i++) {
      await page.waitForTimeout(100);
      await page.reload();
    }
    // The log without the notice of the redirect, as a later visit shows it.
    await page.goto(`${base}${new URL(page.url()).pathname}`);
    await page.locator('details summary').first().click();
    expect(await page.locator('pre.answer').first().textContent()).toBe('answer 200');
    await shot('webhook-deliveries');
    await page.getByRole('button', { name: 'Redeliver' }).first().click();
    await receiver.waitFor(2);
    expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
    await page.goto(`${base}/dashboard/webhooks`);
    await shot('webhooks');
    expect(await page.content()).not.toContain(secret!.slice(6));
  }, 30_000);

  it('fits both pages in 390 px without sideways scrolling', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
    await phone.context().addCookies(await page.context().cookies());
    try {
      const hrefOf = async (url: string, selector: string) => {
        await page.goto(`${base}${url}`);
        return page.evaluate<string>(`document.querySelector('${selector}').getAttribute('href')`);
      };
      const job = await hrefOf('/dashboard/jobs', 'table.jobs tr:last-child a');
      const endpoint = await hrefOf('/dashboard/webhooks', 'table.endpoints a.key-name');
      for (const [name, url] of [
        ['jobs', '/dashboard/jobs'],
        ['job', job],
        ['webhooks', '/dashboard/webhooks'],
        ['webhook', endpoint],
      ] as const) {
        await phone.goto(`${base}${url}`);
        expect(
          await phone.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth'),
          name,
        ).toBeLessThanOrEqual(0);
        const sideways = await phone.evaluate<number>(
          "Math.max(0, ...[...document.querySelectorAll('.table-wrap')].map((w) => w.scrollWidth - w.clientWidth))",
        );
        expect(sideways, name).toBeLessThanOrEqual(0);
        await shot(`mobile-${name}`, phone);
      }
    } finally {
      await phone.close();
    }
    expect(problems).toEqual([]);
  }, 30_000);
});
