import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { csrfOf, type DashClient, signedIn } from '../helpers/dashboard.js';
import { pngSize } from '../helpers/png.js';
import { type SmallBlog, startSmallBlog } from '../helpers/sites-ui-site.js';
import { secondAccount } from '../helpers/webhooks.js';

// The Sites pages over HTTP on a real app and a small blog on 127.0.0.1: register (CSRF, the
// API's refusals in the form), a page's tag and its real /og card, purge, warm with the job's
// progress, settings, delete; a second account that reaches none of it; and the Link preview's
// fix from a site.
let t: TestApp;
let blog: SmallBlog;
let c: DashClient;
let other: DashClient;

beforeAll(async () => {
  blog = await startSmallBlog();
  t = await startTestApp({ allowPrivateHosts: [blog.hostPort], jobsWorkers: 2 });
  c = await signedIn(t);
  const hostile = await secondAccount(t, 'Hostile');
  other = await signedIn(t, (await t.store.getAccount(hostile.accountId))!.email);
}, 30_000);
afterAll(async () => {
  await t?.close();
  await blog?.close();
});

/** Resolves once `cond()` holds, asking every 100 ms; throws after `ms`. */
async function waitFor(cond: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const unescaped = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

async function register(extra: Record<string, string> = {}): Promise<string> {
  const page = await c.get('/dashboard/sites');
  const res = await c.post('/dashboard/sites', {
    _csrf: csrfOf(page.body),
    origins: blog.url,
    template: 'blog',
    theme: 'account',
    fallbackTitle: 'Small Blog',
    fallbackSubtitle: '',
    refreshSeconds: '86400',
    name: '',
    ...extra,
  });
  expect(res.statusCode, res.body).toBe(303);
  const id = /^\/dashboard\/sites\/(site_\w+)\?notice=created$/.exec(String(res.headers.location))?.[1];
  expect(id).toBeDefined();
  return id!;
}

describe('Sites pages', () => {
  it('registers a site and shows a page’s tag and its real card', async () => {
    const empty = await c.get('/dashboard/sites');
    expect(empty.statusCode).toBe(200);
    expect(empty.body).toContain('<a href="/dashboard/sites" aria-current="page">');
    expect(empty.body).toContain('No sites yet.');
    const forged = await c.post('/dashboard/sites', { _csrf: 'nope', origins: blog.url, template: 'blog' });
    expect(forged.statusCode).toBe(403);

    const id = await register();
    const created = await c.get(`/dashboard/sites/${id}?notice=created`);
    expect(created.statusCode).toBe(200);
    expect(created.body).toContain('The site is registered.');
    const tagOf = (body: string) => unescaped(/<code id="site-tag"[^>]*>([^<]*)<\/code>/.exec(body)![1]!);
    expect(tagOf(created.body)).toMatch(
      new RegExp(`^<meta property="og:image" content="http://[^"]+/og/${id}/">$`),
    );

    const post = await c.get(`/dashboard/sites/${id}?path=${encodeURIComponent('/blog/post-1?x=1&y=2')}`);
    expect(tagOf(post.body)).toMatch(new RegExp(`/og/${id}/blog/post-1\\?x=1&amp;y=2">$`));
    const src = unescaped(/<img src="([^"]+)" alt="The card of /.exec(post.body)![1]!);
    expect(src).toBe(`/og/${id}/blog/post-1?x=1&y=2`);
    const card = await t.inject({
      method: 'GET',
      url: src,
      headers: { 'user-agent': 'facebookexternalhit/1.1' },
    });
    expect(card.statusCode).toBe(200);
    expect(card.headers['content-type']).toBe('image/png');
    expect(pngSize(card.rawPayload)).toEqual({ width: 1200, height: 630 });

    const elsewhere = await c.get(
      `/dashboard/sites/${id}?path=${encodeURIComponent('https://other.example/x')}`,
    );
    expect(elsewhere.body).toContain(`https://other.example is not one of the site&#39;s origins`);

    const list = await c.get('/dashboard/sites');
    expect(list.body).toContain(`<span class="key-id">${id}</span>`);
  });

  it('sends a visitor who is not signed in to sign-in', async () => {
    const res = await t.inject({ method: 'GET', url: '/dashboard/sites' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/sign-in?from=app&next=%2Fdashboard%2Fsites');
  });

  it('shows the API’s refusal in the form, keeping what was typed', async () => {
    const page = await c.get('/dashboard/sites');
    const res = await c.post('/dashboard/sites', {
      _csrf: csrfOf(page.body),
      origins: 'http://10.0.0.1',
      template: 'blog',
      theme: 'account',
      fallbackTitle: 'Typed title',
      refreshSeconds: '3600',
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain(
      'Origins[0] is not a public web address (private, loopback and internal hosts cannot be read).',
    );
    expect(res.body).toContain('>http://10.0.0.1</textarea>');
    expect(res.body).toContain('value="Typed title"');
  });

  it('purges, warms with the job’s progress, saves settings, and deletes', async () => {
    const id = await register({ name: 'Warm blog' });
    let page = await c.get(`/dashboard/sites/${id}`);
    const purged = await c.post(`/dashboard/sites/${id}/purge`, {
      _csrf: csrfOf(page.body),
      path: '/blog/post-1',
    });
    expect(purged.statusCode).toBe(303);
    expect(purged.headers.location).toBe(`/dashboard/sites/${id}?notice=purged&path=%2Fblog%2Fpost-1`);
    const all = await c.post(`/dashboard/sites/${id}/purge`, { _csrf: csrfOf(page.body), path: '' });
    expect(all.headers.location).toBe(`/dashboard/sites/${id}?notice=purged-all`);

    const badLimit = await c.post(`/dashboard/sites/${id}/warm`, { _csrf: csrfOf(page.body), limit: '0' });
    expect(badLimit.statusCode).toBe(400);
    expect(badLimit.body).toContain(
      '<div class="alert error" role="alert">limit must be an integer from 1 to',
    );
    const offSite = await c.post(`/dashboard/sites/${id}/warm`, {
      _csrf: csrfOf(page.body),
      sitemap: 'http://10.0.0.1/sitemap.xml',
    });
    expect(offSite.statusCode).toBe(400);

    const warm = await c.post(`/dashboard/sites/${id}/warm`, {
      _csrf: csrfOf(page.body),
      sitemap: '',
      limit: '',
    });
    expect(warm.statusCode).toBe(303);
    const where = String(warm.headers.location);
    const job = /\?job=(job_[\w-]+)#warm$/.exec(where)?.[1];
    expect(job).toBeDefined();
    await waitFor(
      async () => (await c.get(where.replace(/#.*/, ''))).body.includes('3 of 3 pages warmed'),
      20_000,
    );
    page = await c.get(where.replace(/#.*/, ''));
    expect(page.body).toContain(`<a class="mono" href="/dashboard/jobs/${job}">${job}</a>`);
    expect(page.body).not.toContain('data-live="warm-live"');

    const saved = await c.post(`/dashboard/sites/${id}`, {
      _csrf: csrfOf(page.body),
      origins: blog.url,
      template: 'blog',
      theme: 'none',
      fallbackTitle: 'Small Blog',
      refreshSeconds: '3600',
      render: 'browser',
      name: 'Renamed blog',
    });
    expect(saved.statusCode).toBe(303);
    page = await c.get(`/dashboard/sites/${id}?notice=saved`);
    expect(page.body).toContain('<h1>Renamed blog</h1>');
    expect(page.body).toContain('read again after 1 hour · in a browser');

    // Another account reaches none of it.
    const csrfB = csrfOf((await other.get('/dashboard/sites')).body);
    expect((await other.get(`/dashboard/sites/${id}`)).statusCode).toBe(404);
    expect((await other.post(`/dashboard/sites/${id}/purge`, { _csrf: csrfB, path: '' })).statusCode).toBe(
      404,
    );
    expect((await other.post(`/dashboard/sites/${id}/warm`, { _csrf: csrfB })).statusCode).toBe(404);
    expect((await other.post(`/dashboard/sites/${id}/delete`, { _csrf: csrfB })).statusCode).toBe(404);

    const confirm = await c.get(`/dashboard/sites/${id}/delete`);
    expect(confirm.body).toContain('<h1 id="confirm-title">Delete Renamed blog?</h1>');
    const gone = await c.post(`/dashboard/sites/${id}/delete`, { _csrf: csrfOf(confirm.body) });
    expect(gone.statusCode).toBe(303);
    expect(gone.headers.location).toBe('/dashboard/sites?notice=deleted');
    expect((await c.get(`/dashboard/sites/${id}`)).statusCode).toBe(404);
    expect((await t.inject({ method: 'GET', url: `/og/${id}/` })).statusCode).toBe(404);
  });

  it('offers the site’s og:image tag as the Link preview’s fix for a page on its origin', async () => {
    await register({ name: 'Preview blog' });
    const mine = (await t.inject({ method: 'GET', url: '/sites' })).json().sites as Array<{ id: string }>;
    const res = await c.get(`/dashboard/link-preview?url=${encodeURIComponent(`${blog.url}/about`)}`);
    expect(res.statusCode).toBe(200);
    const code = /<code id="lp-site-tag"[^>]*>([^<]*)<\/code>/.exec(res.body)?.[1];
    expect(code, res.body.slice(0, 500)).toBeDefined();
    // The account has several sites on this origin (the tests above made them): any of them.
    const tag = unescaped(code!);
    expect(tag).toMatch(/^<meta property="og:image" content="http:\/\/[^"]+\/og\/site_\w+\/about">$/);
    expect(mine.map((s) => s.id)).toContain(/site_\w+/.exec(tag)![0]);
    // Another account's check of the same page gets no tag from this account's site.
    const foreign = await other.get(`/dashboard/link-preview?url=${encodeURIComponent(`${blog.url}/about`)}`);
    expect(foreign.body).not.toContain('lp-site-tag');
  });
});
