// @module-tag chromium
import { readlinkSync, realpathSync } from 'node:fs';
import { type AddressInfo, createServer, type Server } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScreenshotRequest } from '../../src/render/screenshot/request.js';
import { settings } from '../../src/settings.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable, FULL_CHROMIUM } from '../helpers/browser.js';
import { type PageServer, startPageServer } from '../helpers/pages.js';
import { pixelAt, pngSize } from '../helpers/png.js';
import { closedPort } from '../helpers/servers.js';

// Real Chromium (Debian's, installed by the set-up) loading loopback fixture pages that the
// allow-list setting lets through; everything else is the production path.
let t: TestApp;
let pages: PageServer;
let deadPort: number;
/** Accepts connections and answers with text that is not HTTP. */
let garbage: Server;
let garbagePort: number;

const shot = (query: Record<string, string>, headers: Record<string, string> = {}) =>
  t.inject({ method: 'GET', url: `/render/url?${new URLSearchParams(query)}`, headers });

/** Share of the PNG's pixels that are nearly black. */
async function darkShare(png: Buffer): Promise<number> {
  const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
  let dark = 0;
  for (let i = 0; i < info.width * info.height; i++) if (data[i]! < 64) dark++;
  return dark / (info.width * info.height);
}

/** The executable of the app's running browser, from /proc (what really ran, wrappers resolved). */
const browserBinary = (app: TestApp) =>
  readlinkSync(`/proc/${app.modules.screenshots.status().browser.pid}/exe`);

beforeAll(async () => {
  pages = await startPageServer();
  deadPort = await closedPort();
  garbage = createServer((socket) => {
    socket.on('error', () => {});
    socket.end('garbage, not http\r\n\r\n', () => socket.destroy());
  });
  await new Promise<void>((r) => garbage.listen(0, '127.0.0.1', () => r()));
  garbagePort = (garbage.address() as AddressInfo).port;
  t = await startTestApp({
    allowPrivateHosts: [pages.hostPort, `127.0.0.1:${deadPort}`, `127.0.0.1:${garbagePort}`],
    screenshotViewports: ['square=300x200@2'],
  });
});
afterAll(async () => {
  await t?.close();
  await pages?.close();
  await new Promise<void>((r) => (garbage ? garbage.close(() => r()) : r()));
});

describe('GET /render/url: the PNG', () => {
  it.each([
    ['og', 1200, 630],
    ['desktop', 1280, 800],
    ['mobile', 1170, 2532],
    ['square', 600, 400],
  ])('viewport %s gives a %i×%i PNG (width × scale) of the visible page', async (viewport, w, h) => {
    const res = await shot({ url: `${pages.url}/split-mobile?v=${viewport}`, viewport });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    const png = res.rawPayload;
    expect(pngSize(png)).toEqual({ width: w, height: h });
    expect(await pixelAt(png, Math.round(w * 0.25), Math.round(h / 2))).toEqual([255, 0, 0, 255]);
    expect(await pixelAt(png, Math.round(w * 0.75), Math.round(h / 2))).toEqual([0, 0, 255, 255]);
  });

  it('mobile shows a desktop page zoomed out to its full width, as a phone does', async () => {
    // No meta viewport: the page lays out 980 px wide and the phone zooms out to 390/980. The
    // capture once drew only the left 390 CSS px of that, leaving the right part white.
    const res = await shot({ url: `${pages.url}/wide`, viewport: 'mobile' });
    expect(res.statusCode).toBe(200);
    const png = res.rawPayload;
    expect(pngSize(png)).toEqual({ width: 1170, height: 2532 });
    // 960 px of page at 3 × 390/980 ≈ 1.19 device pixels per CSS pixel: red to ~573, blue to ~1146.
    expect(await pixelAt(png, 300, 1000)).toEqual([255, 0, 0, 255]);
    expect(await pixelAt(png, 860, 1000)).toEqual([0, 0, 255, 255]);
    expect(await pixelAt(png, 1100, 2000)).toEqual([0, 0, 255, 255]);
  });

  it('mobile lays a fluid page without a meta viewport out 980 px wide and shows all of it', async () => {
    // A page whose width follows the window: a phone gives it 980 CSS px and zooms out. Capturing
    // "beyond the viewport" once laid it out again at 390 px, leaving the right 60 % empty.
    const res = await shot({ url: `${pages.url}/fluid`, viewport: 'mobile' });
    expect(res.statusCode).toBe(200);
    const png = res.rawPayload;
    expect(pngSize(png)).toEqual({ width: 1170, height: 2532 });
    // Two halves of 490 CSS px each: red to x≈585, blue from there to the right edge, top to bottom.
    expect(await pixelAt(png, 300, 100)).toEqual([255, 0, 0, 255]);
    expect(await pixelAt(png, 560, 1200)).toEqual([255, 0, 0, 255]);
    expect(await pixelAt(png, 610, 1200)).toEqual([0, 0, 255, 255]);
    expect(await pixelAt(png, 1160, 2500)).toEqual([0, 0, 255, 255]);
  });

  it('uses the og viewport and waitUntil=load when none is given', async () => {
    const res = await shot({ url: `${pages.url}/split?defaults` });
    expect(res.statusCode).toBe(200);
    expect(pngSize(res.rawPayload)).toEqual({ width: 1200, height: 630 });
  });

  it('shows content that appears only after networkidle, and not with load', async () => {
    const early = await shot({ url: `${pages.url}/late?w=load`, waitUntil: 'load' });
    const idle = await shot({ url: `${pages.url}/late?w=idle`, waitUntil: 'networkidle' });
    expect(early.statusCode).toBe(200);
    expect(idle.statusCode).toBe(200);
    expect(await pixelAt(early.rawPayload, 600, 400)).toEqual([255, 255, 255, 255]);
    expect(await pixelAt(idle.rawPayload, 600, 400)).toEqual([0, 255, 0, 255]);
  });

  it('captures a page that sends itself to a download while loading, without waiting out the deadline', async () => {
    const started = Date.now();
    const res = await shot({ url: `${pages.url}/to-download` });
    expect(res.statusCode).toBe(200);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await pixelAt(res.rawPayload, 300, 300)).toEqual([255, 0, 0, 255]);
    expect(await pixelAt(res.rawPayload, 900, 300)).toEqual([0, 0, 255, 255]);
  });

  it('reaches networkidle on a page that would start a SharedWorker (offered none, as service workers)', async () => {
    // With one, Playwright's networkidle never came and the request waited out its deadline.
    const started = Date.now();
    const res = await shot({ url: `${pages.url}/shared-worker`, waitUntil: 'networkidle' });
    expect(res.statusCode).toBe(200);
    expect(Date.now() - started).toBeLessThan(5_000);
    // The page saw no SharedWorker and painted itself green.
    expect(await pixelAt(res.rawPayload, 600, 300)).toEqual([0, 255, 0, 255]);
  });

  it('waits for web fonts after the event, so text in a slow font is drawn', async () => {
    const res = await shot({ url: `${pages.url}/font`, waitUntil: 'domcontentloaded' });
    expect(res.statusCode).toBe(200);
    // 400 px black "H" strokes: with font-display:block and no wait they would still be invisible.
    expect(await darkShare(res.rawPayload)).toBeGreaterThan(0.05);
  });

  it("runs Debian's headless shell by default", async () => {
    await t.modules.screenshots.warm();
    expect(browserBinary(t)).toBe(realpathSync(String(settings.chromiumPath.default)));
  });

  it('caps the height at the viewport: a 100,000 px page still gives 1200×630', async () => {
    const res = await shot({ url: `${pages.url}/tall` });
    expect(res.statusCode).toBe(200);
    expect(pngSize(res.rawPayload)).toEqual({ width: 1200, height: 630 });
    expect(await pixelAt(res.rawPayload, 600, 600)).toEqual([255, 0, 0, 255]);
  });
});

describe.skipIf(!chromiumAvailable(FULL_CHROMIUM))(
  "GET /render/url on Debian's full browser (CARDSHOT_CHROMIUM_PATH=/usr/bin/chromium)",
  () => {
    // The default is the headless shell; the full browser is the alternative and the fallback.
    it('gives the same sizes and pixels, and waits for web fonts', async () => {
      // This test is about pixels, not time: under CI's load the full browser's first start
      // and a 1170×2532 capture once outran the 15 s default, so it starts warm with room.
      const full = await startTestApp({
        allowPrivateHosts: [pages.hostPort],
        chromiumPath: FULL_CHROMIUM,
        screenshotTimeoutMs: 60_000,
      });
      await full.modules.screenshots.warm();
      const get = (query: Record<string, string>) =>
        full.inject({ method: 'GET', url: `/render/url?${new URLSearchParams(query)}` });
      try {
        for (const [viewport, w, h] of [
          ['og', 1200, 630],
          ['mobile', 1170, 2532],
        ] as const) {
          const res = await get({ url: `${pages.url}/split-mobile?full=${viewport}`, viewport });
          expect(res.statusCode).toBe(200);
          expect(pngSize(res.rawPayload)).toEqual({ width: w, height: h });
          expect(await pixelAt(res.rawPayload, Math.round(w * 0.25), Math.round(h / 2))).toEqual([
            255, 0, 0, 255,
          ]);
          expect(await pixelAt(res.rawPayload, Math.round(w * 0.75), Math.round(h / 2))).toEqual([
            0, 0, 255, 255,
          ]);
        }
        const font = await get({ url: `${pages.url}/font?full=1`, waitUntil: 'domcontentloaded' });
        expect(font.statusCode).toBe(200);
        expect(await darkShare(font.rawPayload)).toBeGreaterThan(0.05);
        // The wrapper in /usr/bin exec's the browser: the process that ran is Debian's full build.
        expect(browserBinary(full)).toBe('/usr/lib/chromium/chromium');
      } finally {
        await full.close();
      }
    }, 120_000);
  },
);

describe('GET /render/url: caching', () => {
  it('answers MISS with cache headers, then HIT with the same bytes, then 304 without capturing', async () => {
    const url = `${pages.url}/split?cache=1`;
    const first = await shot({ url });
    expect(first.statusCode).toBe(200);
    expect(first.headers['x-cache']).toBe('MISS');
    expect(first.headers['cache-control']).toBe('public, max-age=86400, s-maxage=86400');
    expect(first.headers.age).toBe('0');
    expect(first.headers['x-target-status']).toBe('200');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]{40}"$/);
    expect(first.headers['server-timing']).toMatch(/navigate;dur=[\d.]+.*capture;dur=[\d.]+.*total;dur=/);

    const hits = pages.hits('/split');
    const again = await shot({ url });
    expect(again.statusCode).toBe(200);
    expect(again.headers['x-cache']).toBe('HIT');
    expect(again.headers.etag).toBe(etag);
    expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(again.headers['cache-control']).toBe('public, max-age=86400, s-maxage=86400');

    const revalidated = await shot({ url }, { 'if-none-match': etag });
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.rawPayload.length).toBe(0);
    expect(revalidated.headers.etag).toBe(etag);
    expect(revalidated.headers['cache-control']).toBe('public, max-age=86400, s-maxage=86400');
    expect(pages.hits('/split')).toBe(hits);
  });

  it('keys the cache by the normalised URL: case of scheme and host, default port and fragment do not matter', async () => {
    const first = await shot({ url: `${pages.url}/split?norm=1#top` });
    expect(first.headers['x-cache']).toBe('MISS');
    const same = await shot({ url: `HTTP://127.0.0.1:${pages.port}/split?norm=1#elsewhere` });
    expect(same.headers['x-cache']).toBe('HIT');
    const otherViewport = await shot({ url: `${pages.url}/split?norm=1`, viewport: 'desktop' });
    expect(otherViewport.headers['x-cache']).toBe('MISS');
  });

  it('shares one capture between identical concurrent requests', async () => {
    const before = pages.hits('/hold');
    const url = `${pages.url}/hold?ms=300&flight=1`;
    const [a, b, c] = await Promise.all([shot({ url }), shot({ url }), shot({ url })]);
    expect([a.statusCode, b.statusCode, c.statusCode]).toEqual([200, 200, 200]);
    expect(pages.hits('/hold') - before).toBe(1);
    expect(b.headers.etag).toBe(a.headers.etag);
  });

  it('renders a page that answers 404, says so in X-Target-Status, and caches it for 60 s only', async () => {
    const res = await shot({ url: `${pages.url}/status/404` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-target-status']).toBe('404');
    expect(res.headers['cache-control']).toBe('public, max-age=60, s-maxage=60');
    expect(pngSize(res.rawPayload)).toEqual({ width: 1200, height: 630 });
    const again = await shot({ url: `${pages.url}/status/404` });
    expect(again.headers['x-cache']).toBe('HIT');
    expect(again.headers['x-target-status']).toBe('404');
    expect(again.headers['cache-control']).toBe('public, max-age=60, s-maxage=60');
  });

  it('keeps a 3xx with nowhere to go (no Location) for 60 s only, like an error page', async () => {
    const res = await shot({ url: `${pages.url}/status/302` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-target-status']).toBe('302');
    expect(res.headers['cache-control']).toBe('public, max-age=60, s-maxage=60');
  });

  it('refuses a redirect to file:, data: or any other scheme like any refused redirect (400)', async () => {
    for (const to of [
      'file:///etc/passwd',
      'data:text/html,<h1>hi</h1>',
      'ftp://127.0.0.1/x',
      'mailto:a@example.com',
    ]) {
      const res = await shot({ url: `${pages.url}/redirect?to=${encodeURIComponent(to)}` });
      expect({ to, status: res.statusCode, body: res.json() }).toEqual({
        to,
        status: 400,
        body: { error: 'url redirected to an address that is not allowed' },
      });
    }
  });

  it("renders an empty 503 as the browser's own error page, with X-Target-Status 503", async () => {
    const res = await shot({ url: `${pages.url}/empty/503` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-target-status']).toBe('503');
    expect(res.headers['cache-control']).toBe('public, max-age=60, s-maxage=60');
  });
});

describe('the capture function for other layers', () => {
  it('takes a screenshot without reading or filling the cache', async () => {
    const { screenshots } = t.modules;
    const req = parseScreenshotRequest({ url: `${pages.url}/split?direct=1` }, screenshots.viewports);
    const out = await screenshots.capture(req);
    expect(pngSize(out.image)).toEqual({ width: 1200, height: 630 });
    expect(out.format).toBe('png');
    expect(out.targetStatus).toBe(200);
    expect(out.timings.navigate).toBeGreaterThan(0);
    const viaHttp = await shot({ url: `${pages.url}/split?direct=1` });
    expect(viaHttp.headers['x-cache']).toBe('MISS');
  });
});

describe('GET /render/url: errors', () => {
  const expectError = async (
    res: Awaited<ReturnType<typeof shot>>,
    status: number,
    error: string,
  ): Promise<void> => {
    expect({ status: res.statusCode, body: res.json() }).toEqual({ status, body: { error } });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  };

  it.each([
    ['no url', {}, 'url is required (an absolute http or https URL)'],
    [
      'no scheme',
      { url: 'example.com' },
      'url must be an absolute http or https URL (for example https://example.com/)',
    ],
    [
      'file: URL',
      { url: 'file:///etc/passwd' },
      'url must be an absolute http or https URL (for example https://example.com/)',
    ],
    ['credentials', { url: 'http://user:pw@example.com/' }, 'url must not contain a user name or password'],
    [
      'a 2059-character url',
      { url: `http://example.com/${'a'.repeat(2040)}` },
      'url must be at most 2048 characters (got 2059)',
    ],
    [
      'an unknown viewport',
      { url: 'http://example.com/', viewport: 'tablet' },
      'viewport must be one of: og, desktop, mobile, square (got "tablet")',
    ],
    [
      'an unknown waitUntil',
      { url: 'http://example.com/', waitUntil: 'idle' },
      'waitUntil must be one of: load, domcontentloaded, networkidle (got "idle")',
    ],
    [
      'a misspelt parameter',
      { url: 'http://example.com/', waituntil: 'load' },
      'Unknown query parameter "waituntil" (did you mean "waitUntil"?). Allowed: url, viewport, waitUntil, fullPage, selector, waitForSelector, delay, darkMode, hideSelectors, blockAds, blockCookieBanners, scale, format, quality, paper, landscape, margin, printBackground, pageRanges, media, locale, timezone, reducedMotion, css, clip, headers, cookies, basicAuth, userAgent, response, ttl, fresh',
    ],
  ])('400 for %s', async (_label, query, error) => {
    await expectError(await shot(query as Record<string, string>), 400, error);
  });

  it('400 when a parameter is given twice', async () => {
    const res = await t.inject({
      method: 'GET',
      url: '/render/url?url=http://a.example/&url=http://b.example/',
    });
    await expectError(res, 400, 'url must be given once');
  });

  it('400 with a generic message for a private address; the reason goes to the log only', async () => {
    const res = await shot({ url: 'http://169.254.169.254/latest/meta-data/' });
    await expectError(res, 400, 'url points to an address that is not allowed');
    const line = t.logs.find((l) => l.msg === 'url points to an address that is not allowed');
    expect(String(line?.detail)).toContain('link-local');
  });

  it('502 naming the cause when the port is closed (http and https)', async () => {
    await expectError(
      await shot({ url: `http://127.0.0.1:${deadPort}/` }),
      502,
      `127.0.0.1:${deadPort} refused the connection`,
    );
    await expectError(
      await shot({ url: `https://127.0.0.1:${deadPort}/` }),
      502,
      `127.0.0.1:${deadPort} refused the connection`,
    );
  });

  it('502 in plain words when the server answers with something that is not HTTP', async () => {
    await expectError(
      await shot({ url: `http://127.0.0.1:${garbagePort}/` }),
      502,
      `127.0.0.1:${garbagePort} did not answer with valid HTTP`,
    );
  });

  // Regression (issue 20 §5): a missing internal name was 502 "Could not resolve", an existing one
  // 400 "not allowed", so a key holder could map internal DNS. Both are now the refusal.
  it('400 "not allowed" for internal names, whether they resolve or not, directly or after a redirect', async () => {
    for (const host of ['localhost', 'no-such-name-x7', 'no-such.internal', 'no-such.lan', 'x.home.arpa']) {
      await expectError(
        await shot({ url: `http://${host}/` }),
        400,
        'url points to an address that is not allowed',
      );
    }
    await expectError(
      await shot({ url: `${pages.url}/redirect?to=${encodeURIComponent('http://no-such.internal/x')}` }),
      400,
      'url redirected to an address that is not allowed',
    );
  });

  // Regression (issue 26 §3): a public name that does not resolve was 502 "Could not resolve",
  // one resolving to a private address 400: the difference mapped split-horizon DNS.
  it('400 "not allowed" when the host name does not resolve, directly or after a redirect', async () => {
    await expectError(
      await shot({ url: 'http://no-such-host.invalid/' }),
      400,
      'url points to an address that is not allowed',
    );
    await expectError(
      await shot({ url: `${pages.url}/redirect?to=${encodeURIComponent('http://no-such-host.invalid/x')}` }),
      400,
      'url redirected to an address that is not allowed',
    );
  });

  it('502 when the TLS handshake fails', async () => {
    // An https URL aimed at a plain-http server: the handshake cannot succeed.
    await expectError(
      await shot({ url: `https://127.0.0.1:${pages.port}/split` }),
      502,
      'TLS handshake with 127.0.0.1 failed (ERR_SSL_PROTOCOL_ERROR)',
    );
  });

  it('422 when the url is a file download', async () => {
    await expectError(
      await shot({ url: `${pages.url}/download` }),
      422,
      'url answered with a file download, not a page',
    );
  });
});

describe('GET /render/url: hostile pages', () => {
  it('dismisses alert, confirm and prompt', async () => {
    const res = await shot({ url: `${pages.url}/dialog` });
    expect(res.statusCode).toBe(200);
    expect(await pixelAt(res.rawPayload, 900, 300)).toEqual([0, 0, 255, 255]);
  });

  it('closes popups and captures the page itself', async () => {
    const res = await shot({ url: `${pages.url}/popup` });
    expect(res.statusCode).toBe(200);
    expect(await pixelAt(res.rawPayload, 100, 300)).toEqual([255, 0, 0, 255]);
  });

  it('uses a fresh context per request: no cookie or storage survives', async () => {
    for (const visit of [1, 2, 3]) {
      const res = await shot({ url: `${pages.url}/remember?visit=${visit}` });
      expect(res.statusCode).toBe(200);
      expect(await pixelAt(res.rawPayload, 600, 300)).toEqual([0, 0, 255, 255]);
    }
  });

  it.each([
    ['png', 'image/png'],
    ['webp', 'image/webp'],
  ])(
    'with every option on (%s): dialogs dismissed, popups closed, a fresh context each time',
    async (format, type) => {
      const options = {
        fullPage: 'true',
        selector: 'body',
        waitForSelector: 'body',
        hideSelectors: 'iframe, .none',
        darkMode: 'true',
        scale: '2',
        delay: '20',
        format,
      };
      // WebP is lossy: a flat colour comes back within a step or two of itself.
      const read = async (image: Buffer, x: number, y: number) => {
        const png = format === 'png' ? image : await sharp(image).png().toBuffer();
        return (await pixelAt(png, x, y)).slice(0, 3).map((v) => Math.round(v / 16) * 16);
      };
      const dialog = await shot({ url: `${pages.url}/dialog?${format}`, ...options });
      expect([dialog.statusCode, dialog.headers['content-type']]).toEqual([200, type]);
      expect(await read(dialog.rawPayload, 1800, 600)).toEqual([0, 0, 256]);
      const popup = await shot({ url: `${pages.url}/popup?${format}`, ...options });
      expect(popup.statusCode).toBe(200);
      expect(await read(popup.rawPayload, 200, 600)).toEqual([256, 0, 0]);
      for (const visit of [1, 2]) {
        const res = await shot({ url: `${pages.url}/remember?${format}=${visit}`, ...options });
        expect(res.statusCode).toBe(200);
        expect(await read(res.rawPayload, 1200, 600)).toEqual([0, 0, 256]);
      }
    },
  );

  it('answers HEAD with the headers only', async () => {
    const res = await t.inject({
      method: 'HEAD',
      url: `/render/url?url=${encodeURIComponent(`${pages.url}/split?head`)}`,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.rawPayload.length).toBe(0);
  });
});
