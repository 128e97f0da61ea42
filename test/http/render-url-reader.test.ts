// @module-tag chromium
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/errors.js';
import { type PageServer, startPageServer } from '../helpers/pages.js';
import { pixelAt, pngSize } from '../helpers/png.js';
import { type CanaryServer, startCanaryServer } from '../helpers/servers.js';

// As a reader sees it (issue 29 §3): locale, timezone, media, reducedMotion, css and clip on real
// Chromium. The /reader/ fixtures paint themselves green when they see what was asked, red when
// not (test/helpers/reader-pages.ts), so each check is one pixel.
let t: TestApp;
let pages: PageServer;
let canary: CanaryServer;

const shot = (query: Record<string, string>) =>
  t.inject({ method: 'GET', url: `/render/url?${new URLSearchParams(query)}` });

const RED = [255, 0, 0, 255];
const GREEN = [0, 255, 0, 255];
const BLUE = [0, 0, 255, 255];

async function colour(query: Record<string, string>) {
  const res = await shot(query);
  expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
  return pixelAt(res.rawPayload, 10, 10);
}

beforeAll(async () => {
  pages = await startPageServer();
  canary = await startCanaryServer();
  t = await startTestApp({ allowPrivateHosts: [pages.hostPort] });
});
afterAll(async () => {
  await t?.close();
  await pages?.close();
  await canary?.close();
});

describe('locale and timezone', () => {
  it('en-US and UTC by default, as before the options existed', async () => {
    expect(await colour({ url: `${pages.url}/reader/locale?lang=en-US` })).toEqual(GREEN);
    expect(await colour({ url: `${pages.url}/reader/timezone?tz=UTC` })).toEqual(GREEN);
  });

  it('locale sets Accept-Language, navigator.language and Intl; its canonical form is one request', async () => {
    const url = `${pages.url}/reader/locale?lang=de-DE`;
    expect(await colour({ url })).toEqual(RED);
    const first = await shot({ url, locale: 'de-de' });
    expect(await pixelAt(first.rawPayload, 10, 10)).toEqual(GREEN);
    const second = await shot({ url, locale: 'de-DE' });
    expect(second.headers['x-cache']).toBe('HIT');
    expect(second.headers.etag).toBe(first.headers.etag);
  });

  it('timezone sets the page’s time zone', async () => {
    expect(
      await colour({ url: `${pages.url}/reader/timezone?tz=Asia/Tokyo`, timezone: 'Asia/Tokyo' }),
    ).toEqual(GREEN);
  });

  it('both at once, with every other reader option', async () => {
    const url = `${pages.url}/reader/locale?lang=pt-BR&all`;
    expect(
      await colour({
        url,
        locale: 'pt-BR',
        timezone: 'America/Sao_Paulo',
        reducedMotion: 'true',
        darkMode: 'true',
      }),
    ).toEqual(GREEN);
  });
});

describe('media and reducedMotion', () => {
  it('media=print shows an image with the print stylesheet', async () => {
    expect(await colour({ url: `${pages.url}/reader/print` })).toEqual(RED);
    expect(await colour({ url: `${pages.url}/reader/print`, media: 'print' })).toEqual(GREEN);
  });

  it('reducedMotion emulates prefers-reduced-motion: reduce', async () => {
    expect(await colour({ url: `${pages.url}/reader/motion` })).toEqual(RED);
    expect(await colour({ url: `${pages.url}/reader/motion`, reducedMotion: 'true' })).toEqual(GREEN);
  });
});

describe('css', () => {
  it('applies under a strict Content-Security-Policy (style-src self)', async () => {
    const css = 'html, body { background: #00ff00 !important }';
    expect(await colour({ url: `${pages.url}/reader/csp` })).toEqual(RED);
    expect(await colour({ url: `${pages.url}/reader/csp`, css })).toEqual(GREEN);
  });

  it('loads what it names through the URL guard: an allowed image arrives, a refused host sees nothing', async () => {
    const before = pages.hits('/solid/0000ff.png');
    const css = `body { background: url(${pages.url}/solid/0000ff.png) !important }`;
    expect((await shot({ url: `${pages.url}/reader/motion?css-load`, css })).statusCode).toBe(200);
    expect(pages.hits('/solid/0000ff.png')).toBe(before + 1);
    const refused = `body { background-image: url(${canary.url}/bg.png) !important; min-height: 100vh }`;
    expect((await shot({ url: `${pages.url}/reader/motion?css-canary`, css: refused })).statusCode).toBe(200);
    expect(canary.connections).toBe(0);
  });

  it('is data, not script: a </style><script> in it runs nothing', async () => {
    const css = '</style><script>document.body.style.background="#0000ff"</script> body{}';
    expect(await colour({ url: `${pages.url}/reader/print?inject`, css })).toEqual(RED);
  });
});

describe('clip', () => {
  it('captures an area of the viewport, exactly its size', async () => {
    const res = await shot({ url: `${pages.url}/split?clip`, clip: '500,0,200,100' });
    expect(res.statusCode).toBe(200);
    expect(pngSize(res.rawPayload)).toEqual({ width: 200, height: 100 });
    expect(await pixelAt(res.rawPayload, 50, 50)).toEqual(RED);
    expect(await pixelAt(res.rawPayload, 150, 50)).toEqual(BLUE);
  });

  it('with fullPage, an area of the whole page below the fold, at the requested scale', async () => {
    const res = await shot({
      url: `${pages.url}/opt/element?clip`,
      clip: '100,900,300,200',
      fullPage: 'true',
      scale: '2',
    });
    expect(res.statusCode).toBe(200);
    expect(pngSize(res.rawPayload)).toEqual({ width: 600, height: 400 });
    expect(await pixelAt(res.rawPayload, 100, 200)).toEqual(RED);
    expect(await pixelAt(res.rawPayload, 500, 200)).toEqual(BLUE);
  });

  it('400 when the area reaches outside the viewport, or the page', async () => {
    await expectError(
      await shot({ url: `${pages.url}/split?clip-out`, clip: '1100,0,200,100' }),
      400,
      'clip 1100,0,200,100 reaches outside the viewport (1200×630 CSS pixels)',
    );
    await expectError(
      await shot({ url: `${pages.url}/opt/element?clip-out`, clip: '0,31150,100,100', fullPage: 'true' }),
      400,
      expect.stringMatching(/^clip 0,31150,100,100 reaches outside the page \(1200×\d+ CSS pixels\)$/),
    );
  });
});

describe('refusals, before any browser', () => {
  const url = 'http://127.0.0.1:9/x';
  const cases: Array<[Record<string, string>, string]> = [
    [
      { timezone: 'Mars/Olympus' },
      'timezone "Mars/Olympus" is not a known IANA time zone (for example Europe/Berlin or America/New_York)',
    ],
    [
      { locale: 'not a locale' },
      'locale must be a BCP 47 language tag (for example de-DE or pt-BR) (got "not a locale")',
    ],
    [{ locale: 'x'.repeat(36) }, 'locale must be at most 35 characters (got 36)'],
    [{ reducedMotion: 'yes' }, 'reducedMotion must be true or false (or 1 or 0) (got "yes")'],
    [{ css: 'a'.repeat(65_537) }, 'css must be at most 65536 characters (got 65537)'],
    [{ css: 'é'.repeat(40_000) }, 'css must be at most 65536 bytes (got 80000)'],
    [
      { clip: '0,0,0,10' },
      'clip must be x,y,width,height in whole CSS pixels (width and height at least 1, each at most 100000) (got "0,0,0,10")',
    ],
    [
      { clip: '1,2,3' },
      'clip must be x,y,width,height in whole CSS pixels (width and height at least 1, each at most 100000) (got "1,2,3")',
    ],
    [{ clip: '0,0,10,10', selector: '#a' }, 'clip and selector cannot be combined; leave one out'],
    [{ clip: '0,0,10,10', format: 'pdf' }, 'clip applies to images only; leave it out with format=pdf'],
  ];
  for (const [query, message] of cases) {
    it(`400 for ${JSON.stringify(query).slice(0, 80)}`, async () => {
      await expectError(await shot({ url, ...query }), 400, message);
    });
  }
});

describe('response=json', () => {
  it('answers the page facts, read from the rendered page, and a signed image URL that serves the image', async () => {
    const res = await shot({ url: `${pages.url}/reader/meta`, response: 'json', format: 'webp' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['cache-control']).toBe('private, no-store');
    const body = res.json();
    expect(body.page).toEqual({
      finalUrl: `${pages.url}/reader/meta`,
      status: 200,
      title: 'Das Produkt',
      description: 'Alles über das Produkt',
      lang: 'de',
      canonical: `${pages.url}/reader/meta?canonical`,
      themeColor: '#112233',
      icons: [{ href: `${pages.url}/favicon.png`, rel: 'icon', sizes: '32x32', type: 'image/png' }],
      openGraph: { title: 'Produkt OG', image: 'https://cdn.example/p.png' },
      twitter: { card: 'summary_large_image' },
    });
    expect(body.image).toMatchObject({ contentType: 'image/webp', width: 1200, height: 630 });
    expect(body.image.bytes).toBeGreaterThan(0);
    expect(Object.keys(body.timings)).toContain('navigate');
    const url = new URL(body.image.url);
    expect(url.searchParams.get('response')).toBeNull();
    expect(Number(url.searchParams.get('exp')) - Date.now() / 1000).toBeGreaterThan(3500);
    const image = await t.inject({ method: 'GET', url: `${url.pathname}${url.search}`, auth: false });
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/webp');
    expect(image.rawPayload.length).toBe(body.image.bytes);
    expect(image.headers.etag).toBe(body.image.etag);
    // Cached with its facts: a second JSON answer needs no browser.
    const again = await shot({ url: `${pages.url}/reader/meta`, response: 'json', format: 'webp' });
    expect(again.headers['x-cache']).toBe('HIT');
    expect(again.json().page).toEqual(body.page);
  });

  it('from a POST body too', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/render/url',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ url: `${pages.url}/reader/meta?post`, response: 'json', darkMode: true }),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().page.title).toBe('Das Produkt');
    expect(new URL(res.json().image.url).searchParams.get('darkMode')).toBe('true');
  });

  it('400 for another value', async () => {
    await expectError(
      await shot({ url: 'http://127.0.0.1:9/', response: 'xml' }),
      400,
      'response must be one of: image, json (got "xml")',
    );
  });
});
