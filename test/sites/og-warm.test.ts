import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type SitePages, startSitePages } from '../helpers/site-pages.js';

/**
 * Warming a site from its sitemap (issue 30 §1): POST /sites/:id/warm answers a job, its items
 * read each page through the same path as /og, and afterwards /og answers every page from the
 * cache without reading it again. Also the per-site read budget: past it, 429 for pages not yet
 * read, while cached pages are still answered.
 */
let t: TestApp;
let fixture: SitePages;
let siteId: string;

beforeAll(async () => {
  fixture = await startSitePages();
  t = await startTestApp({
    allowPrivateHosts: [fixture.hostPort],
    siteReadTimeoutMs: 1500,
    siteReadsPerMinute: 12,
  });
  const res = await t.inject({
    method: 'POST',
    url: '/sites',
    payload: { origins: [fixture.url], template: 'blog' },
  });
  expect(res.statusCode, res.body).toBe(201);
  siteId = res.json().site.id;
}, 30_000);

afterAll(async () => {
  await t?.close();
  await fixture?.close();
});

async function finished(statusUrl: string): Promise<Record<string, unknown>> {
  const path = new URL(statusUrl).pathname;
  for (let i = 0; i < 200; i++) {
    const res = await t.inject({ method: 'GET', url: path });
    const job = res.json();
    if (job.status === 'completed' || job.status === 'failed') return job;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the warm job did not finish');
}

const og = (path: string) =>
  t.inject({
    method: 'GET',
    url: `/og/${siteId}${path}`,
    headers: { 'user-agent': 'Slackbot 1.0' },
    auth: false,
  });

describe('POST /sites/:id/warm', () => {
  it('reads every page of the sitemap as a job; /og then answers them from the cache', {
    timeout: 60_000,
  }, async () => {
    const res = await t.inject({ method: 'POST', url: `/sites/${siteId}/warm` });
    expect(res.statusCode, res.body).toBe(202);
    const { job } = res.json();
    expect(job).toMatchObject({ status: 'queued', items: 4 });
    const done = await finished(job.statusUrl);
    expect(done).toMatchObject({ status: 'completed', counts: expect.objectContaining({ succeeded: 4 }) });

    const items = await t.inject({ method: 'GET', url: `/jobs/${job.id}/items` });
    expect(items.json().items.map((i: { kind: string }) => i.kind)).toEqual([
      'site-page',
      'site-page',
      'site-page',
      'site-page',
    ]);

    for (const path of ['/', '/blog/post-1', '/blog/title-only', '/blog/no-title']) {
      const before = fixture.hits(path);
      const card = await og(path);
      expect(card.statusCode).toBe(200);
      expect(card.headers['x-cache'], path).toBe('HIT');
      expect(fixture.hits(path)).toBe(before);
    }
    expect((await og('/blog/no-title')).headers['x-cardshot-fallback']).toBe('no-title');
  });

  it('follows a sitemap index one level, keeping only pages on the site', { timeout: 60_000 }, async () => {
    const res = await t.inject({
      method: 'POST',
      url: `/sites/${siteId}/warm`,
      payload: { sitemap: `${fixture.url}/sitemap-index.xml`, limit: 5 },
    });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().job.items).toBe(5);
    expect((await finished(res.json().job.statusUrl)).status).toBe('completed');
  });

  it('refuses a sitemap off the site, a missing one, and another account', async () => {
    const off = await t.inject({
      method: 'POST',
      url: `/sites/${siteId}/warm`,
      payload: { sitemap: 'https://elsewhere.example/sitemap.xml' },
    });
    expect(off.statusCode).toBe(400);
    expect(off.json()).toEqual({ error: "sitemap must be on one of the site's origins" });
    const missing = await t.inject({
      method: 'POST',
      url: `/sites/${siteId}/warm`,
      payload: { sitemap: `${fixture.url}/no-sitemap.xml` },
    });
    expect(missing.statusCode).toBe(422);
    expect(missing.json()).toEqual({ error: `The sitemap ${fixture.url}/no-sitemap.xml answered HTTP 404` });

    const other = await t.modules.accounts.accounts.createAccount({
      name: 'o',
      email: `o-${Date.now()}@example.com`,
      plan: 'pro',
    });
    const key = await t.modules.accounts.accounts.createKey({
      accountId: other.id,
      name: 'o',
      environment: 'test',
    });
    const theirs = await t.inject({
      method: 'POST',
      url: `/sites/${siteId}/warm`,
      headers: { 'x-api-key': key.key },
    });
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json()).toEqual({ error: 'No such site on this account' });
  });
});

describe('the per-site read budget', () => {
  it('answers 429 past it for pages not read yet, and cached pages still', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 14; i++) statuses.push((await og(`/search?q=n${i}`)).statusCode);
    expect(statuses).toContain(429);
    const limited = await og('/search?q=another');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ error: 'Rate limit exceeded' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(fixture.hits('/search?q=another')).toBe(0);
    const cached = await og('/blog/post-1');
    expect(cached.statusCode).toBe(200);
    expect(cached.headers['x-cache']).toBe('HIT');
  });
});
