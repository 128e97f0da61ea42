import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { HAS_TESSERACT, ocr, plainText, wordsRead } from '../helpers/ocr.js';
import { pngSize } from '../helpers/png.js';
import { FALLBACK_PAGES, type SitePages, startSitePages, TITLED_PAGES } from '../helpers/site-pages.js';

/**
 * GET /og/<site>/<path> against a fixture site of about twenty pages (issue 30 §4): each page's
 * card shows its title (read back by OCR), the pages that cannot be read get the site's fallback
 * with the reason, the size follows the crawler, answers are cached (the page is read once) and
 * revalidated with ETags, and a purge makes the next request read the page again.
 */
let t: TestApp;
let fixture: SitePages;
let siteId: string;

const FACEBOOK = 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)';

beforeAll(async () => {
  fixture = await startSitePages();
  t = await startTestApp({ allowPrivateHosts: [fixture.hostPort], siteReadTimeoutMs: 1500 });
  const res = await t.inject({
    method: 'POST',
    url: '/sites',
    payload: {
      origins: [fixture.url],
      template: 'blog',
      name: 'Fixture Blog',
      fields: { title: 'og:title|twitter:title|headline|title' },
      fallback: { title: 'Fallback of the fixture', subtitle: 'Read more on the blog' },
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  siteId = res.json().site.id;
  await t.app.listen({ port: 0, host: '127.0.0.1' });
}, 30_000);

afterAll(async () => {
  await t?.close();
  await fixture?.close();
});

const og = (path: string, headers: Record<string, string> = { 'user-agent': FACEBOOK }) =>
  t.inject({ method: 'GET', url: `/og/${siteId}${path}`, headers, auth: false });

describe('GET /og: titles', () => {
  it('draws each readable page with its own title (read back by OCR), no fallback', {
    timeout: 120_000,
  }, async () => {
    const read: Array<[string, Buffer]> = [];
    for (const path of Object.keys(TITLED_PAGES)) {
      const res = await og(path);
      expect(res.statusCode, `${path}: ${res.body.slice(0, 200)}`).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers['x-cardshot-fallback'], path).toBeUndefined();
      expect(res.headers.vary).toBe('User-Agent');
      expect(res.headers.etag).toMatch(/^"[^"]+"$/);
      expect(pngSize(res.rawPayload)).toEqual({ width: 1200, height: 630 });
      read.push([path, res.rawPayload]);
    }
    if (!HAS_TESSERACT) return;
    const texts = await Promise.all(read.map(([, png]) => ocr(png)));
    read.forEach(([path], i) => {
      const title = TITLED_PAGES[path] ?? '';
      expect(wordsRead(texts[i] ?? '', title), `${path}: ${texts[i]}`).toBeGreaterThanOrEqual(0.6);
    });
  });

  it('gives unreadable pages the fallback card with the reason, never an error', {
    timeout: 60_000,
  }, async () => {
    for (const [path, reason] of Object.entries({ ...FALLBACK_PAGES, '/slow': 'timeout' })) {
      const res = await og(path);
      expect(res.statusCode, path).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers['x-cardshot-fallback'], path).toBe(reason);
      expect(res.headers['cache-control']).toBe('public, max-age=60');
      if (HAS_TESSERACT && path === '/error') {
        expect(plainText(await ocr(res.rawPayload))).toContain('fallback of the fixture');
      }
    }
  });

  it('reads the head of a 5 MB page and of one that never ends from the first megabyte only', async () => {
    for (const path of ['/blog/huge-head', '/blog/endless-head']) {
      const started = Date.now();
      const res = await og(`${path}?fresh=${Date.now()}`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-cardshot-fallback']).toBeUndefined();
      expect(Date.now() - started).toBeLessThan(1500);
    }
  });
});

describe('GET /og: sizes by crawler', () => {
  it('follows the User-Agent, and says so in Vary', async () => {
    const cases: Array<[string | undefined, number, number]> = [
      [FACEBOOK, 1200, 630],
      ['Twitterbot/1.0', 1200, 675],
      ['LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)', 1200, 627],
      ['Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', 1200, 630],
      ['Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)', 1200, 630],
      ['WhatsApp/2.23.20.0 A', 1200, 630],
      ['TelegramBot (like TwitterBot)', 1200, 630],
      ['Mozilla/5.0 (Macintosh) facebookexternalhit/1.1 Facebot Twitterbot/1.0', 1200, 630],
      ['Pinterest/0.2 (+https://www.pinterest.com/bot.html)', 1080, 1080],
      ['http.rb/5.1.1 (Mastodon/4.3.0; +https://mastodon.social/)', 1200, 630],
      [undefined, 1200, 630],
    ];
    for (const [ua, width, height] of cases) {
      const res = await og('/blog/post-1', ua ? { 'user-agent': ua } : {});
      expect(res.statusCode).toBe(200);
      expect(pngSize(res.rawPayload), ua).toEqual({ width, height });
      expect(res.headers.vary).toBe('User-Agent');
    }
  });
});

describe('GET /og: freshness', () => {
  it('reads a page once, answers the rest from the cache, and 304s a matching ETag', async () => {
    const first = await og('/blog/title-only?v=cache');
    expect(first.headers['x-cache']).toBe('MISS');
    const again = await og('/blog/title-only?v=cache');
    expect(again.headers['x-cache']).toBe('HIT');
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(fixture.hits('/blog/title-only?v=cache')).toBe(1);
    const revalidated = await og('/blog/title-only?v=cache', {
      'user-agent': FACEBOOK,
      'if-none-match': String(first.headers.etag),
    });
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.body).toBe('');
    expect(fixture.hits('/blog/title-only?v=cache')).toBe(1);
  });

  it('answers 1,000 concurrent crawler requests from the cache without reading the page again', async () => {
    await og('/blog/post-1?flood=1');
    const before = fixture.hits('/blog/post-1?flood=1');
    const renders = t.renders();
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 1000 }, () => og('/blog/post-1?flood=1')));
    const ms = Date.now() - started;
    expect(answers.every((r) => r.statusCode === 200 && r.headers['x-cache'] === 'HIT')).toBe(true);
    expect(fixture.hits('/blog/post-1?flood=1')).toBe(before);
    expect(t.renders()).toBe(renders);
    expect(ms).toBeLessThan(10_000);
  });

  it('reads the page again after a purge of the page, and of the whole site', async () => {
    await og('/blog/post-1?purge=1');
    expect(fixture.hits('/blog/post-1?purge=1')).toBe(1);
    const one = await t.inject({
      method: 'POST',
      url: `/sites/${siteId}/purge`,
      payload: { path: '/blog/post-1?purge=1' },
    });
    expect(one.statusCode, one.body).toBe(200);
    expect(one.json()).toEqual({ purged: 'page', path: '/blog/post-1?purge=1' });
    expect((await og('/blog/post-1?purge=1')).headers['x-cache']).toBe('MISS');
    expect(fixture.hits('/blog/post-1?purge=1')).toBe(2);
    const all = await t.inject({ method: 'POST', url: `/sites/${siteId}/purge` });
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json()).toEqual({ purged: 'site' });
    await og('/blog/post-1?purge=1');
    expect(fixture.hits('/blog/post-1?purge=1')).toBe(3);
  });

  it('counts answers in the account usage', async () => {
    await t.modules.usage.flush();
    const today = new Date().toISOString().slice(0, 10);
    const rows = await t.store.usage(t.account.id, today, today);
    const count = (kind: string) => rows.filter((r) => r.kind === kind).reduce((n, r) => n + r.count, 0);
    expect(count('cache_hit')).toBeGreaterThanOrEqual(1000);
    expect(count('template')).toBeGreaterThan(10);
  });
});

describe('GET /og: hostile paths', () => {
  // Over a real socket: app.inject parses the path as a WHATWG URL first, which would fold the
  // very tricks under test (`%2e%2e`, backslashes) before the server saw them.
  it('keeps //host, ..%2f, @host and encoded dots on the origin', async () => {
    const paths = [
      '//evil.example/x',
      '/..%2f..%2fetc/passwd',
      '/@evil.example/x',
      '/%2e%2e/%2e%2e/secret',
      '/a/../../../b',
    ];
    for (const path of paths) {
      const res = await rawGet(`/og/${siteId}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers['x-cardshot-fallback'], path).toBe('http-404');
    }
    // They reached the fixture (the site's origin), with the dot segments resolved on it.
    expect(fixture.hits('//evil.example/x')).toBe(1);
    expect(fixture.hits('/@evil.example/x')).toBe(1);
    expect(fixture.hits('/..%2f..%2fetc/passwd')).toBe(1);
    expect(fixture.hits('/secret')).toBe(1);
    expect(fixture.hits('/b')).toBe(1);
  });

  it('refuses backslashes and control characters with 400', async () => {
    for (const path of ['/\\evil.example/x', '/%5cevil.example', '/%5Cevil.example', '/a%00b']) {
      const res = await rawGet(`/og/${siteId}${path}`);
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.body)).toEqual({
        error: 'The page path must not contain backslashes or control characters',
      });
    }
  });

  it('answers 404 for an unknown site', async () => {
    const res = await t.inject({ method: 'GET', url: '/og/site_00000000000000000000/x', auth: false });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'No such site' });
    const bad = await t.inject({ method: 'GET', url: '/og/not-a-site/x', auth: false });
    expect(bad.statusCode).toBe(404);
    expect(bad.json()).toEqual({ error: 'No such site' });
  });
});

describe("GET /og when the site's template is gone", () => {
  it('draws the page in the built-in design instead of failing (a plan that no longer has it)', async () => {
    const made = await t.inject({
      method: 'POST',
      url: '/sites',
      payload: { origins: [fixture.url], template: 'saas', fallback: { title: 'Saas fallback' } },
    });
    expect(made.statusCode, made.body).toBe(201);
    const id = made.json().site.id as string;
    const [path] = Object.keys(TITLED_PAGES);
    await t.modules.accounts.accounts.setPlan(t.account.id, 'free'); // blog only
    try {
      const res = await t.inject({
        method: 'GET',
        url: `/og/${id}${path}`,
        headers: { 'user-agent': FACEBOOK },
        auth: false,
      });
      expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers['x-cardshot-fallback']).toBeUndefined();
      expect(pngSize(res.rawPayload)).toEqual({ width: 1200, height: 630 });
    } finally {
      await t.modules.accounts.accounts.setPlan(t.account.id, 'pro');
      await t.inject({ method: 'DELETE', url: `/sites/${id}` });
    }
  });
});

/** A GET written byte for byte on a socket to the listening app. */
async function rawGet(
  target: string,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const address = t.app.server.address();
  if (!address || typeof address !== 'object') throw new Error('the app is not listening');
  const socket = connect(address.port, '127.0.0.1');
  socket.write(
    `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: ${FACEBOOK}\r\nConnection: close\r\n\r\n`,
  );
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('latin1');
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') };
}
