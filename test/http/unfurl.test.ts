import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UnfurlReport } from '../../src/sites/unfurl/types.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startUnfurlSite, type UnfurlSite } from '../helpers/unfurl-site.js';

/**
 * GET /unfurl against a fixture site on 127.0.0.1 whose pages each have one known problem:
 * each problem is found, for exactly the networks it concerns, and nothing is invented (the
 * clean page has no problem at all, not even an info).
 */
let site: UnfurlSite;
let t: TestApp;

beforeAll(async () => {
  site = await startUnfurlSite();
  // The default time-out (8 s): with 2.5 s, /big-head's nine reads of 1 MiB each timed out for
  // six networks in a clean CI beside the Chromium suites (683 ms on an idle machine).
  t = await startTestApp({ allowPrivateHosts: site.hostPorts }, { unfurlCa: site.ca });
}, 30_000);

afterAll(async () => {
  await t?.close();
  await site?.close();
});

async function unfurl(path: string, app = t): Promise<UnfurlReport> {
  const res = await app.inject({ method: 'GET', url: `/unfurl?url=${encodeURIComponent(site.url + path)}` });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  return res.json() as UnfurlReport;
}

/** The problems as `code: platform,platform` lines (sorted), the shape each test states. */
function found(r: UnfurlReport): string[] {
  return r.problems.map((p) => `${p.code} (${p.severity}): ${[...p.platforms].sort().join(',')}`).sort();
}

const ALL = 'discord,facebook,imessage,linkedin,mastodon,slack,telegram,whatsapp,x';

describe('GET /unfurl on the fixture site', () => {
  it('finds nothing wrong with the clean page, and says what each network shows', async () => {
    const r = await unfurl('/clean');
    expect(found(r)).toEqual([]);
    expect(r.summary).toEqual({ errors: 0, warnings: 0, infos: 0 });
    expect(r.page).toMatchObject({ status: 200, charset: 'utf-8', title: 'Launch week: five new templates' });
    const x = r.platforms.find((p) => p.id === 'x')!;
    expect(x).toMatchObject({
      card: 'large',
      cardName: 'summary_large_image',
      title: 'Launch week: five new templates',
      siteName: 'Fixture Blog',
      userAgent: 'Twitterbot/1.0',
      image: {
        url: `${site.secureUrl}/img/card.png`,
        width: 1200,
        height: 630,
        aspect: '2:1',
        cropped: false,
      },
    });
    expect(r.platforms.find((p) => p.id === 'discord')!.accentColor).toBe('#5865f2');
    expect(r.platforms.find((p) => p.id === 'linkedin')!.description).toBeNull();
    expect(r.platforms.map((p) => p.card)).toEqual(Array(9).fill('large'));
    // Every network's crawler came with its own User-Agent: nine reads, one each.
    const agents = site.agents('/clean');
    expect(new Set(agents).size).toBe(9);
    expect(agents).toContain('facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)');
    expect(agents.some((a) => a.startsWith('http.rb/'))).toBe(true);
  });

  it.each([
    ['/no-image', [`og_image_missing (error): ${ALL}`]],
    ['/relative-image', [`og_image_relative (error): ${ALL}`]],
    ['/http-image', [`og_image_not_https (warning): ${ALL}`]],
    ['/tiny-image', [`image_too_small (error): ${ALL}`]],
    ['/huge-image', ['image_too_large (error): linkedin,slack,telegram,whatsapp,x']],
    ['/svg-image', [`image_wrong_type (error): ${ALL}`]],
    ['/broken-image', [`image_unreachable (error): ${ALL}`]],
    [
      '/no-description',
      [
        'description_missing (warning): discord,facebook,mastodon,telegram,whatsapp,x',
        'og_description_missing (error): slack',
      ],
    ],
    ['/no-twitter-card', ['twitter_card_missing (warning): discord,slack,telegram,x']],
    ['/summary-card', ['twitter_card_summary (warning): discord,slack,telegram,x']],
    ['/missing', [`page_status (error): ${ALL}`]],
    ['/redirect', [`redirect_chain (warning): ${ALL}`]],
    ['/private-to-x', ['robots_disallowed (error): x']],
    ['/no-linkedin', ['crawler_blocked (error): linkedin']],
    ['/big-head', [`head_too_large (warning): ${ALL}`, `title_missing (error): ${ALL}`]],
    ['/to-private', [`page_unreachable (error): ${ALL}`]],
  ])('%s: finds exactly its problem', async (path, expected) => {
    expect(found(await unfurl(path))).toEqual(expected);
  });

  it('/never-ends: finds exactly its problem, at the time-out', async () => {
    // Its own app with a short time-out, so the page that never ends costs 2.5 s, not 8.
    const short = await startTestApp(
      { allowPrivateHosts: site.hostPorts, unfurlTimeoutMs: 2500 },
      { unfurlCa: site.ca },
    );
    try {
      expect(found(await unfurl('/never-ends', short))).toEqual([`page_timeout (error): ${ALL}`]);
    } finally {
      await short.close();
    }
  });

  it('gives the fix as the exact tag or rule to paste', async () => {
    const relative = await unfurl('/relative-image');
    expect(relative.problems[0]!.fix).toBe(`<meta property="og:image" content="${site.url}/img/card.png">`);
    const robots = await unfurl('/private-to-x');
    expect(robots.problems[0]!.fix).toBe('User-agent: Twitterbot\nAllow: /private-to-x');
    const summary = await unfurl('/summary-card');
    expect(summary.problems[0]!.fix).toBe('<meta name="twitter:card" content="summary_large_image">');
    const blocked = await unfurl('/no-linkedin');
    expect(blocked.problems[0]!.fix).toContain('LinkedInBot/1.0');
  });

  it('records the redirect chain and what the crawler ended on', async () => {
    const r = await unfurl('/redirect');
    expect(r.page.redirects).toEqual([
      { url: `${site.url}/redirect`, status: 301 },
      { url: `${site.url}/redirect-2`, status: 302 },
    ]);
    expect(r.page.finalUrl).toBe(`${site.url}/clean`);
    expect(r.platforms[0]!.fetch).toEqual({
      status: 200,
      finalUrl: `${site.url}/clean`,
      redirects: 2,
      failure: null,
    });
  });

  it('decodes a windows-1252 page by its meta charset', async () => {
    const r = await unfurl('/windows-1252');
    expect(found(r)).toEqual([]);
    expect(r.page.charset).toBe('windows-1252');
    expect(r.page.title).toBe('Café “déjà vu” – naïve');
  });

  it('refuses private origins and non-http URLs with a 400, before fetching anything', async () => {
    for (const url of [
      'http://127.0.0.1:1/',
      'http://10.1.2.3/',
      'http://localhost/',
      'http://169.254.169.254/latest',
    ]) {
      const res = await t.inject({ method: 'GET', url: `/unfurl?url=${encodeURIComponent(url)}` });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'url points to an address that is not allowed' });
    }
    const ftp = await t.inject({ method: 'GET', url: '/unfurl?url=ftp%3A%2F%2Fexample.com%2F' });
    expect(ftp.json()).toEqual({
      error: 'url must be an absolute http or https URL (for example https://example.com/)',
    });
    const none = await t.inject({ method: 'GET', url: '/unfurl' });
    expect([none.statusCode, none.json()]).toEqual([
      400,
      { error: 'url is required (an absolute http or https URL)' },
    ]);
    const extra = await t.inject({ method: 'GET', url: '/unfurl?url=https%3A%2F%2Fexample.com%2F&fresh=1' });
    expect([extra.statusCode, extra.json()]).toEqual([
      400,
      { error: 'Unknown query parameter "fresh". Allowed: url' },
    ]);
  });

  it('takes an API key (401 without one) and counts the request against the rate limit', async () => {
    const anon = await t.inject({
      method: 'GET',
      url: '/unfurl?url=https%3A%2F%2Fexample.com%2F',
      auth: false,
    });
    expect([anon.statusCode, anon.json()]).toEqual([401, { error: 'Missing or invalid API key' }]);
    const res = await t.inject({
      method: 'GET',
      url: `/unfurl?url=${encodeURIComponent(`${site.url}/clean`)}`,
    });
    expect(res.headers['x-ratelimit-limit']).toBe('600');
    expect(Number(res.headers['x-ratelimit-remaining'])).toBeLessThan(600);
  });

  it('answers the same account from its short cache without reading the page again', async () => {
    const before = site.hits('/summary-card');
    await unfurl('/summary-card');
    await unfurl('/summary-card');
    expect(site.hits('/summary-card')).toBe(before);
  });

  it('shares one run between identical checks in flight: one read per crawler', async () => {
    const before = site.hits('/clean');
    const [a, b] = await Promise.all([unfurl('/clean?shared=1'), unfurl('/clean?shared=1')]);
    expect(a).toEqual(b);
    expect(site.hits('/clean') - before).toBe(9);
  });
});
