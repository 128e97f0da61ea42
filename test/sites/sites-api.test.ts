import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedKey } from '../../src/accounts/manager.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type SitePages, startSitePages } from '../helpers/site-pages.js';

/**
 * /sites (issue 30 §1): create, list, read, change, delete, as the API promises them, with the
 * refusals a user sees (each naming its field), a private origin refused, the per-account cap,
 * and a second, hostile account that sees none of it.
 */
let t: TestApp;
let fixture: SitePages;
let hostile: CreatedKey;

beforeAll(async () => {
  fixture = await startSitePages();
  t = await startTestApp({ allowPrivateHosts: [fixture.hostPort], sitesPerAccount: 3 });
  const account = await t.modules.accounts.accounts.createAccount({
    name: 'hostile',
    email: `hostile-${Date.now()}@example.com`,
    plan: 'pro',
  });
  hostile = await t.modules.accounts.accounts.createKey({
    accountId: account.id,
    name: 'h',
    environment: 'test',
  });
}, 30_000);

afterAll(async () => {
  await t?.close();
  await fixture?.close();
});

const post = (body: unknown, key?: string) =>
  t.inject({
    method: 'POST',
    url: '/sites',
    payload: body as object,
    ...(key ? { headers: { 'x-api-key': key } } : {}),
  });

describe('POST /sites', () => {
  it('creates a site with the documented defaults and its public /og URL', async () => {
    const res = await post({ origins: [fixture.url], template: 'blog' });
    expect(res.statusCode, res.body).toBe(201);
    const { site } = res.json();
    expect(site).toMatchObject({
      name: fixture.hostPort,
      origins: [fixture.url],
      template: 'blog',
      theme: 'account',
      fields: {
        title: 'og:title|title',
        subtitle: 'og:description|description',
        brand: 'og:site_name|host',
        imageUrl: 'og:image',
      },
      fallback: { title: fixture.hostPort },
      refreshSeconds: 86400,
      render: 'fetch',
    });
    expect(site.id).toMatch(/^site_[0-9a-f]{20}$/);
    expect(site.ogUrl).toMatch(new RegExp(`/og/${site.id}/$`));
    expect(Date.parse(site.createdAt)).toBeGreaterThan(0);
    expect(res.headers.location).toBe(`/sites/${site.id}`);
    await t.inject({ method: 'DELETE', url: `/sites/${site.id}` });
  });

  it('refuses bad bodies with 400 naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [
        { template: 'blog' },
        'origins is required: a list of 1 to 10 origins such as "https://blog.example.com"',
      ],
      [{ origins: ['ftp://x.example'], template: 'blog' }, 'origins[0] must use http or https'],
      [
        { origins: ['https://blog.example.com/path'], template: 'blog' },
        'origins[0] must be an origin only (scheme, host and port), without a path, query or fragment',
      ],
      [
        { origins: ['https://u:p@blog.example.com'], template: 'blog' },
        'origins[0] must not carry a user name or password',
      ],
      [
        { origins: [fixture.url] },
        'template is required: the name of a template (blog, product, saas, or one of yours)',
      ],
      [{ origins: [fixture.url], template: 'nope' }, 'template must be one of: blog, product, saas'],
      [
        { origins: [fixture.url], template: 'blog', refreshSeconds: 5 },
        'refreshSeconds must be an integer from 60 to 2592000 (30 days)',
      ],
      [
        { origins: [fixture.url], template: 'blog', render: 'magic' },
        'render must be "fetch" (read the page head) or "browser" (run its scripts first)',
      ],
      [
        { origins: [fixture.url], template: 'blog', fields: { title: 'bad source!' } },
        'fields.title must be sources separated by | such as "og:title|title" (og:…, twitter:…, title, description, host, or a meta name)',
      ],
      [
        { origins: [fixture.url], template: 'blog', fallback: {} },
        'fallback.title must be text of 1 to 200 characters',
      ],
      [
        { origins: [fixture.url], template: 'blog', colour: 'red' },
        'Unknown field "colour". Allowed: name, origins, template, theme, fields, fallback, refreshSeconds, render',
      ],
    ];
    for (const [body, error] of cases) {
      const res = await post(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toEqual({ error });
    }
  });

  it('refuses a private origin (the URL guard), generically', async () => {
    for (const origin of [
      'http://127.0.0.1:8080',
      'http://10.0.0.1',
      'http://[::1]',
      'http://intranet.local',
      'http://169.254.169.254',
    ]) {
      const res = await post({ origins: [origin], template: 'blog' });
      expect(res.statusCode, origin).toBe(400);
      expect(res.json()).toEqual({
        error: 'origins[0] is not a public web address (private, loopback and internal hosts cannot be read)',
      });
    }
  });

  it('refuses a template outside the plan with 403, and past the cap with 409', async () => {
    const free = await t.modules.accounts.accounts.createAccount({
      name: 'free',
      email: `free-${Date.now()}@example.com`,
      plan: 'free',
    });
    const key = await t.modules.accounts.accounts.createKey({
      accountId: free.id,
      name: 'f',
      environment: 'test',
    });
    const forbidden = await post({ origins: [fixture.url], template: 'saas' }, key.key);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toEqual({ error: 'Template not available on your plan' });

    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await post({ origins: [fixture.url], template: 'blog' }, key.key);
      expect(res.statusCode).toBe(201);
      ids.push(res.json().site.id);
    }
    const full = await post({ origins: [fixture.url], template: 'blog' }, key.key);
    expect(full.statusCode).toBe(409);
    expect(full.json()).toEqual({
      error: 'This account has 3 sites, the most it may have; delete one first',
    });
  });

  it('needs a key', async () => {
    const res = await t.inject({ method: 'GET', url: '/sites', auth: false });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Missing or invalid API key' });
  });
});

describe('GET, PATCH, DELETE /sites/:id', () => {
  it('lists, reads, changes and deletes; another account sees 404 everywhere', async () => {
    const created = (await post({ origins: [fixture.url], template: 'blog', name: 'Fixture' })).json().site;
    const list = await t.inject({ method: 'GET', url: '/sites' });
    expect(list.json().sites.map((s: { id: string }) => s.id)).toContain(created.id);
    const got = await t.inject({ method: 'GET', url: `/sites/${created.id}` });
    expect(got.json()).toEqual({ site: created });

    const patched = await t.inject({
      method: 'PATCH',
      url: `/sites/${created.id}`,
      payload: {
        theme: 'none',
        fields: { subtitle: null },
        fallback: { title: 'Fixture Blog', subtitle: 'Notes' },
        refreshSeconds: 3600,
      },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().site).toMatchObject({
      id: created.id,
      theme: 'none',
      fields: { title: 'og:title|title', subtitle: null },
      fallback: { title: 'Fixture Blog', subtitle: 'Notes' },
      refreshSeconds: 3600,
    });

    const as = { 'x-api-key': hostile.key };
    expect((await t.inject({ method: 'GET', url: '/sites', headers: as })).json()).toEqual({ sites: [] });
    for (const [method, url] of [
      ['GET', `/sites/${created.id}`],
      ['PATCH', `/sites/${created.id}`],
      ['DELETE', `/sites/${created.id}`],
      ['POST', `/sites/${created.id}/purge`],
    ] as const) {
      const res = await t.inject({
        method,
        url,
        headers: as,
        ...(method === 'PATCH' ? { payload: { name: 'mine' } } : {}),
      });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toEqual({ error: 'No such site on this account' });
    }

    const deleted = await t.inject({ method: 'DELETE', url: `/sites/${created.id}` });
    expect(deleted.statusCode).toBe(204);
    expect((await t.inject({ method: 'GET', url: `/sites/${created.id}` })).statusCode).toBe(404);
    const og = await t.inject({ method: 'GET', url: `/og/${created.id}/`, auth: false });
    expect(og.statusCode).toBe(404);
    expect(og.json()).toEqual({ error: 'No such site' });
  });
});
