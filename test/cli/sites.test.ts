import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { runSites } from '../../src/cli/commands/sites.js';
import type { ShotIo } from '../../src/cli/shot/io.js';
import { Cardshot, type Site, siteCardUrl, siteTag } from '../../src/client/index.js';
import type { SiteView } from '../../src/sites/service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pngSize } from '../helpers/png.js';
import { type SmallBlog, startSmallBlog } from '../helpers/sites-ui-site.js';
import { secondAccount } from '../helpers/webhooks.js';

// `npx cardshot sites …` and the client's `sites` in-process against a real server over HTTP
// (SQLite, the real renderer and job queue) and a small blog on 127.0.0.1: what they print,
// their exit statuses, and a second account that sees none of it.
let t: TestApp;
let blog: SmallBlog;
let server: string;
let hostileKey: string;

beforeAll(async () => {
  blog = await startSmallBlog();
  t = await startTestApp({ allowPrivateHosts: [blog.hostPort], jobsWorkers: 2 });
  server = await t.listen();
  hostileKey = (await secondAccount(t, 'Hostile')).key;
}, 30_000);
afterAll(async () => {
  await t?.close();
  await blog?.close();
});

const sites = async (argv: string[], opts: { tty?: boolean; key?: string } = {}) => {
  const out: string[] = [];
  const err: string[] = [];
  const io: ShotIo = {
    stdout: { isTTY: false, write: (d) => out.push(String(d)) },
    stderr: { isTTY: opts.tty ?? false, write: (d) => err.push(String(d)) },
    readStdin: async () => '',
  };
  const code = await runSites([...argv, '--server', server, '--api-key', opts.key ?? t.key.key], io);
  return { code, stdout: out.join(''), stderr: err.join('') };
};

describe('cardshot sites', () => {
  it('creates, lists, shows, tags, updates, purges and deletes a site', async () => {
    const made = await sites([
      'create',
      '--origin',
      blog.url,
      '--template',
      'blog',
      '--fallback-title',
      'Small Blog',
      '--refresh',
      '12h',
      '--field',
      'brand=',
      '--json',
    ]);
    expect(made.code, made.stderr).toBe(0);
    const site = JSON.parse(made.stdout) as Site;
    expect(site).toMatchObject({
      origins: [blog.url],
      template: 'blog',
      fallback: { title: 'Small Blog' },
      refreshSeconds: 43_200,
      render: 'fetch',
      fields: { brand: null },
      ogUrl: expect.stringMatching(new RegExp(`^http://[^/]+/og/${site.id}/$`)),
    });

    const list = await sites(['list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      new RegExp(
        `^ID +NAME +TEMPLATE +REFRESH +ORIGINS\\n${site.id} +127\\.0\\.0\\.1:\\d+ +blog +12h +${blog.url}\\n$`,
      ),
    );

    const shown = await sites(['show', site.id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`Refresh:    every 12h\n`);
    expect(shown.stdout).toContain(`Fallback:   Small Blog\n`);
    expect(shown.stdout).toContain(`brand ← (not drawn)`);
    expect(shown.stdout).toContain(`\n  <meta property="og:image" content="${site.ogUrl}">\n`);

    const tag = await sites(['tag', site.id, '/blog/post-1?lang=en&ref=x']);
    expect(tag).toEqual({
      code: 0,
      stdout: `<meta property="og:image" content="${site.ogUrl}blog/post-1?lang=en&amp;ref=x">\n`,
      stderr: '',
    });
    const byUrl = await sites(['tag', site.id, `${blog.url}/about`]);
    expect(byUrl.stdout).toBe(`<meta property="og:image" content="${site.ogUrl}about">\n`);
    const elsewhere = await sites(['tag', site.id, 'https://other.example/about']);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain(
      `https://other.example is not one of the site's origins (${blog.url})`,
    );

    const updated = await sites(['update', site.id, '--refresh', '1h', '--browser']);
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toContain('Refresh:    every 1h\nReads with: a browser (scripts run)\n');

    const purged = await sites(['purge', site.id, '--path', '/blog/post-1']);
    expect(purged).toMatchObject({
      code: 0,
      stdout: 'Purged /blog/post-1: the next crawler reads the page again.\n',
    });
    const all = await sites(['purge', site.id]);
    expect(all.stdout).toBe('Purged every page of the site: each is read again when a crawler next asks.\n');

    // The other account sees nothing of it.
    const foreign = await sites(['show', site.id], { key: hostileKey });
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toMatch(/^cardshot sites: No such site on this account \(HTTP 404, /);
    expect((await sites(['list'], { key: hostileKey })).stdout).toBe(
      'No sites yet: npx cardshot sites create --origin https://… --template blog\n',
    );

    const deleted = await sites(['delete', site.id]);
    expect(deleted).toMatchObject({ code: 0, stdout: `Deleted ${site.id}: its /og URLs answer 404 now.\n` });
    expect((await sites(['show', site.id])).code).toBe(1);
  });

  it('warms from the sitemap with a bar on a terminal, and the cards are then cached', async () => {
    const made = await sites(['create', '--origin', blog.url, '--template', 'blog', '--json']);
    const site = JSON.parse(made.stdout) as Site;
    const warm = await sites(['warm', site.id], { tty: true });
    expect(warm.code, warm.stderr).toBe(0);
    expect(warm.stdout).toMatch(
      new RegExp(
        `^Warming ${site.id}: job job_\\S+ with 3 pages\\nWarmed 3 of 3 pages in [\\d.]+ s \\(job completed\\)\\n$`,
      ),
    );
    expect(warm.stderr).toContain('██████████████████████████████ 3/3');
    const reads = blog.reads.get('/blog/post-2');
    const card = await fetch(`${server}/og/${site.id}/blog/post-2`, {
      headers: { 'user-agent': 'facebookexternalhit/1.1' },
    });
    expect(card.status).toBe(200);
    expect(card.headers.get('x-cache')).toBe('HIT');
    expect(pngSize(Buffer.from(await card.arrayBuffer()))).toEqual({ width: 1200, height: 630 });
    expect(blog.reads.get('/blog/post-2')).toBe(reads);
  });

  it('refuses what cannot work: 2 for the command line, 1 with the server’s message', async () => {
    const none = await sites(['create', '--template', 'blog']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('sites create needs --origin URL and --template NAME');
    const theme = await sites(['create', '--origin', blog.url, '--template', 'blog', '--theme', 'dark']);
    expect(theme.code).toBe(2);
    expect(theme.stderr).toContain(
      "--theme must be account (your brand theme) or none (the template's own look)",
    );
    const refresh = await sites(['create', '--origin', blog.url, '--template', 'blog', '--refresh', 'soon']);
    expect(refresh.code).toBe(2);
    const limit = await sites(['warm', 'site_x', '--limit', '0']);
    expect(limit.code).toBe(2);
    expect(limit.stderr).toContain('--limit must be a whole number of pages, at least 1 (got "0")');
    const noId = await sites(['purge']);
    expect(noId.code).toBe(2);
    expect(noId.stderr).toContain('sites purge needs the site id (site_…)');
    const private_ = await sites(['create', '--origin', 'http://10.0.0.1', '--template', 'blog']);
    expect(private_.code).toBe(1);
    expect(private_.stderr).toContain(
      'origins[0] is not a public web address (private, loopback and internal hosts cannot be read) (HTTP 400',
    );
  });
});

describe('the TS client', () => {
  it('declares the site the server answers', () => {
    expectTypeOf<SiteView>().toMatchTypeOf<Site>();
    expectTypeOf<Site>().toMatchTypeOf<SiteView>();
  });

  it('creates, reads, changes, purges, warms and deletes sites', async () => {
    const client = new Cardshot({ baseUrl: server, apiKey: t.key.key });
    const site = await client.sites.create({ origins: [blog.url], template: 'blog', name: 'Client blog' });
    expect(site.name).toBe('Client blog');
    expect((await client.sites.list()).map((s) => s.id)).toContain(site.id);
    expect(await client.sites.get(site.id)).toEqual(site);
    const changed = await client.sites.update(site.id, { refreshSeconds: 600 });
    expect(changed.refreshSeconds).toBe(600);
    expect(siteCardUrl(site, '/blog/post 1')).toBe(`${site.ogUrl}blog/post%201`);
    expect(siteTag(site, '/')).toBe(`<meta property="og:image" content="${site.ogUrl}">`);
    expect(await client.sites.purge(site.id)).toEqual({ purged: 'site' });
    expect(await client.sites.purge(site.id, { path: '/blog/post-1' })).toEqual({
      purged: 'page',
      path: '/blog/post-1',
    });
    const job = await client.sites.warm(site.id, { limit: 2 });
    expect(job.items).toBe(2);
    const ended = await client.jobs.wait(job.id, { intervalMs: 100 });
    expect(ended.counts.succeeded).toBe(2);
    await client.sites.delete(site.id);
    await expect(client.sites.get(site.id)).rejects.toMatchObject({ status: 404 });
    const hostile = new Cardshot({ baseUrl: server, apiKey: hostileKey });
    await expect(hostile.sites.purge(site.id)).rejects.toMatchObject({ status: 404 });
  });
});
