// @module-tag chromium
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/errors.js';
import { type PageServer, startPageServer } from '../helpers/pages.js';
import { pixelAt, pngSize } from '../helpers/png.js';

// The screenshot options (issue 17) on real Chromium, against the fixture pages under /opt/
// (test/helpers/option-pages.ts): every option checked on the pixels, sizes or headers a caller
// gets. The refusals of bad values are in render-url-options-errors.test.ts.
let t: TestApp;
let pages: PageServer;

const shot = (query: Record<string, string>, headers: Record<string, string> = {}) =>
  t.inject({ method: 'GET', url: `/render/url?${new URLSearchParams(query)}`, headers });

const RED = [255, 0, 0, 255];
const GREEN = [0, 255, 0, 255];
const BLUE = [0, 0, 255, 255];
const WHITE = [255, 255, 255, 255];
const BLACK = [0, 0, 0, 255];

beforeAll(async () => {
  pages = await startPageServer();
  t = await startTestApp({ allowPrivateHosts: [pages.hostPort] });
});
afterAll(async () => {
  await t?.close();
  await pages?.close();
});

describe('fullPage', () => {
  it('scrolls through a tall page so lazy images load, and captures all of it', async () => {
    const observed = pages.hits('/solid/00ff00.png');
    const plain = await shot({ url: `${pages.url}/opt/lazy?plain` });
    expect(pngSize(plain.rawPayload)).toEqual({ width: 1200, height: 630 });
    expect(plain.headers['x-page-height']).toBeUndefined();
    // Without scrolling, the image an IntersectionObserver loads is never asked for.
    expect(pages.hits('/solid/00ff00.png')).toBe(observed);

    const res = await shot({ url: `${pages.url}/opt/lazy`, fullPage: 'true' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(pngSize(res.rawPayload)).toEqual({ width: 1200, height: 4000 });
    expect(res.headers['x-page-height']).toBe('4000');
    expect(res.headers['x-full-page-truncated']).toBeUndefined();
    // The native lazy image (1500–1800) and the observed one (3200–3500), drawn.
    expect(await pixelAt(res.rawPayload, 200, 1650)).toEqual(RED);
    expect(await pixelAt(res.rawPayload, 200, 3350)).toEqual(GREEN);
    expect(await pixelAt(res.rawPayload, 800, 1650)).toEqual(WHITE);
    expect(pages.hits('/solid/00ff00.png')).toBe(observed + 1);
  });

  it('captures the whole page on a phone that shows it zoomed out, as wide as the screen', async () => {
    // No meta viewport: laid out 980 px wide and shown at 390/980 of that, times 3.
    const res = await shot({ url: `${pages.url}/opt/lazy?mobile`, viewport: 'mobile', fullPage: 'true' });
    expect(res.statusCode).toBe(200);
    expect(pngSize(res.rawPayload)).toEqual({ width: 1170, height: Math.round(4000 * (390 / 980) * 3) });
    expect(res.headers['x-page-height']).toBe('4000');
    expect(await pixelAt(res.rawPayload, 200, 1950)).toEqual(RED);
    expect(await pixelAt(res.rawPayload, 200, 4000)).toEqual(GREEN);
  });

  it('cuts a page that grows as it is scrolled at the maximum height, and says so', async () => {
    const res = await shot({ url: `${pages.url}/opt/endless`, fullPage: '1' });
    expect(res.statusCode).toBe(200);
    expect(pngSize(res.rawPayload)).toEqual({ width: 1200, height: 16_384 });
    expect(res.headers['x-full-page-truncated']).toBe('true');
    expect(Number(res.headers['x-page-height'])).toBeGreaterThan(16_384);
  });

  it('is cut at the height WebP can hold, 16,383 pixels', async () => {
    const res = await shot({ url: `${pages.url}/opt/endless?webp`, fullPage: 'true', format: 'webp' });
    expect(res.statusCode).toBe(200);
    const meta = await sharp(res.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 1200, 16_383]);
    expect(res.headers['x-full-page-truncated']).toBe('true');
  });

  it('captures a page shorter than the viewport at the viewport size', async () => {
    const res = await shot({ url: `${pages.url}/split?short`, fullPage: 'true' });
    expect(pngSize(res.rawPayload)).toEqual({ width: 1200, height: 630 });
    expect(res.headers['x-page-height']).toBe('630');
  });
});

describe('selector', () => {
  it('captures only the first matching element, below the fold too', async () => {
    const res = await shot({ url: `${pages.url}/opt/element`, selector: '#card' });
    expect(res.statusCode).toBe(200);
    expect(pngSize(res.rawPayload)).toEqual({ width: 300, height: 200 });
    expect(await pixelAt(res.rawPayload, 70, 100)).toEqual(RED);
    expect(await pixelAt(res.rawPayload, 230, 100)).toEqual(BLUE);
    expect(await pixelAt(res.rawPayload, 0, 0)).toEqual(RED);
    expect(await pixelAt(res.rawPayload, 299, 199)).toEqual(BLUE);
  });

  it('takes the scale: the element at scale 2 is twice the size, same picture', async () => {
    const res = await shot({ url: `${pages.url}/opt/element`, selector: '#card', scale: '2' });
    expect(pngSize(res.rawPayload)).toEqual({ width: 600, height: 400 });
    expect(await pixelAt(res.rawPayload, 140, 200)).toEqual(RED);
    expect(await pixelAt(res.rawPayload, 460, 200)).toEqual(BLUE);
  });

  it('cuts an element taller than the maximum height and says so', async () => {
    const res = await shot({ url: `${pages.url}/opt/element`, selector: '#tall' });
    expect(res.statusCode).toBe(200);
    expect(pngSize(res.rawPayload)).toEqual({ width: 100, height: 16_384 });
    expect(res.headers['x-full-page-truncated']).toBe('true');
    expect(await pixelAt(res.rawPayload, 50, 16_000)).toEqual(GREEN);
  });

  it('422 naming the selector for an element with no size', async () => {
    const res = await shot({ url: `${pages.url}/opt/element`, selector: '#empty' });
    await expectError(
      res,
      422,
      'selector "#empty" matched an element with no size (0×0 CSS pixels): it is hidden or empty',
    );
  });

  it('400 when the browser does not accept a selector our checks let through, before the page is fetched', async () => {
    const before = pages.hits('/opt/element');
    const res = await shot({ url: `${pages.url}/opt/element`, selector: 'select::picker(a)' });
    await expectError(
      res,
      400,
      'selector must be a CSS selector: "select::picker(a)" is not one (the browser does not accept it)',
    );
    expect(pages.hits('/opt/element')).toBe(before);
  });

  it('a selector only Playwright understands (:has-text) is refused before the page is fetched', async () => {
    const before = pages.hits('/opt/element');
    const res = await shot({ url: `${pages.url}/opt/element`, selector: 'div:has-text("x")' });
    await expectError(
      res,
      400,
      'selector must be a CSS selector: "div:has-text(\\"x\\")" is not one (:has-text(…) is not a CSS pseudo-class or pseudo-element browsers know)',
    );
    expect(pages.hits('/opt/element')).toBe(before);
  });
});

describe('waitForSelector and delay', () => {
  it('waits until the selector is visible before capturing', async () => {
    const res = await shot({ url: `${pages.url}/opt/element`, waitForSelector: '.late' });
    expect(res.statusCode).toBe(200);
    expect(await pixelAt(res.rawPayload, 530, 70)).toEqual(GREEN);
    const plain = await shot({ url: `${pages.url}/opt/element?plain` });
    expect(await pixelAt(plain.rawPayload, 530, 70)).toEqual(WHITE);
  });

  it('waits delay ms once the page is ready', async () => {
    const plain = await shot({ url: `${pages.url}/opt/turns` });
    expect(await pixelAt(plain.rawPayload, 600, 300)).toEqual(RED);
    const res = await shot({ url: `${pages.url}/opt/turns`, delay: '1000' });
    expect(res.statusCode).toBe(200);
    expect(await pixelAt(res.rawPayload, 600, 300)).toEqual(GREEN);
    expect(
      Number(/prepare;dur=([\d.]+)/.exec(String(res.headers['server-timing']))?.[1]),
    ).toBeGreaterThanOrEqual(1000);
  });
});

describe('darkMode, hideSelectors and scale', () => {
  it('darkMode emulates prefers-color-scheme: dark', async () => {
    const light = await shot({ url: `${pages.url}/opt/scheme` });
    expect(await pixelAt(light.rawPayload, 600, 300)).toEqual(WHITE);
    const dark = await shot({ url: `${pages.url}/opt/scheme`, darkMode: 'true' });
    expect(await pixelAt(dark.rawPayload, 600, 300)).toEqual(BLACK);
  });

  it('hideSelectors hides every element matching each selector, and their space goes', async () => {
    const plain = await shot({ url: `${pages.url}/opt/hide` });
    expect(await pixelAt(plain.rawPayload, 600, 100)).toEqual(RED);
    // The banner alone: the in-flow ad under it still shows.
    const banner = await shot({ url: `${pages.url}/opt/hide`, hideSelectors: '#banner' });
    expect(await pixelAt(banner.rawPayload, 600, 100)).toEqual(RED);
    const both = await shot({ url: `${pages.url}/opt/hide`, hideSelectors: '#banner, .ad' });
    expect(both.statusCode).toBe(200);
    expect(await pixelAt(both.rawPayload, 600, 100)).toEqual(BLUE);
    expect(await pixelAt(both.rawPayload, 600, 300)).toEqual(BLUE);
  });

  it.each([
    ['og', '2', 2400, 1260, GREEN],
    ['og', '3', 3600, 1890, GREEN],
    ['desktop', '2', 2560, 1600, GREEN],
    ['mobile', '1', 390, 844, RED],
    ['mobile', '2', 780, 1688, GREEN],
  ])(
    'viewport %s at scale %s gives %i×%i, drawn at that device pixel ratio',
    async (viewport, scale, w, h, px) => {
      const res = await shot({ url: `${pages.url}/opt/dpr?${viewport}${scale}`, viewport, scale });
      expect(res.statusCode).toBe(200);
      expect(pngSize(res.rawPayload)).toEqual({ width: w, height: h });
      expect(await pixelAt(res.rawPayload, Math.round(w / 2), Math.round(h / 2))).toEqual(px);
    },
  );

  it('keeps the spare contexts of the viewport for any scale or colour scheme', async () => {
    // Earlier tests left spares for other viewports: og requests bring them back to og.
    const fromSpare = (res: { headers: Record<string, unknown> }) =>
      /context;dur=0(\.0)?,/.test(String(res.headers['server-timing']));
    for (let i = 0; ; i++) {
      await new Promise((r) => setTimeout(r, 500));
      if (fromSpare(await shot({ url: `${pages.url}/split?warm-spares=${i}` }))) break;
      if (i === 10) throw new Error('og requests never found a spare context');
    }
    await new Promise((r) => setTimeout(r, 500));
    const res = await shot({ url: `${pages.url}/opt/dpr?spare`, scale: '2', darkMode: 'true' });
    // The request took a spare made for og at scale 1 (no context was made for it)…
    expect(fromSpare(res)).toBe(true);
    expect(await pixelAt(res.rawPayload, 1200, 600)).toEqual(GREEN);
    // …and the spare made after it is for og again: a scale-2 context would have evicted it.
    await new Promise((r) => setTimeout(r, 500));
    expect(fromSpare(await shot({ url: `${pages.url}/split?after-scale` }))).toBe(true);
  });
});

describe('format and quality', () => {
  const magic = (buf: Buffer) => {
    if (buf.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
      return 'png';
    if (buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return 'jpeg';
    if (buf.toString('ascii', 0, 4) === 'RIFF' && buf.toString('ascii', 8, 12) === 'WEBP') return 'webp';
    if (buf.toString('ascii', 4, 12) === 'ftypavif') return 'avif';
    return 'unknown';
  };

  it.each([
    ['png', 'image/png', 'png'],
    ['jpeg', 'image/jpeg', 'jpeg'],
    ['webp', 'image/webp', 'webp'],
    ['avif', 'image/avif', 'heif'],
  ])('format=%s answers %s with its magic bytes, 1200×630', async (format, type, sharpFormat) => {
    const res = await shot({ url: `${pages.url}/opt/photo?${format}`, format });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(type);
    expect(magic(res.rawPayload)).toBe(format);
    const meta = await sharp(res.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual([sharpFormat, 1200, 630]);
    // The photo itself, not a blank page: its top-left corner is not white.
    const { data } = await sharp(res.rawPayload)
      .extract({ left: 0, top: 0, width: 1, height: 1 })
      .raw()
      .toBuffer({
        resolveWithObject: true,
      });
    expect([...data.subarray(0, 3)]).not.toEqual([255, 255, 255]);
  });

  it('quality changes the size: lower is smaller, for every lossy format', async () => {
    for (const format of ['jpeg', 'webp', 'avif']) {
      const low = await shot({ url: `${pages.url}/opt/photo?q=${format}`, format, quality: '20' });
      const high = await shot({ url: `${pages.url}/opt/photo?q=${format}`, format, quality: '95' });
      expect({ format, smaller: low.rawPayload.length < high.rawPayload.length * 0.7 }).toEqual({
        format,
        smaller: true,
      });
    }
  });

  it('a photo-heavy page is at least 3× smaller as WebP at quality 80 than as PNG', async () => {
    const png = await shot({ url: `${pages.url}/opt/photo?ratio` });
    const webp = await shot({ url: `${pages.url}/opt/photo?ratio`, format: 'webp', quality: '80' });
    expect(png.rawPayload.length / webp.rawPayload.length).toBeGreaterThan(3);
  });
});

describe('caching per option set', () => {
  it('normalises: fullPage=1 and fullPage=true are one entry; defaults are the plain entry', async () => {
    const url = `${pages.url}/opt/lazy?norm`;
    const first = await shot({ url, fullPage: '1' });
    expect(first.headers['x-cache']).toBe('MISS');
    const same = await shot({ url, fullPage: 'true' });
    expect(same.headers['x-cache']).toBe('HIT');
    expect(same.headers.etag).toBe(first.headers.etag);
    expect(same.headers['x-page-height']).toBe('4000');
    expect(same.rawPayload.equals(first.rawPayload)).toBe(true);

    const plain = await shot({ url });
    expect(plain.headers['x-cache']).toBe('MISS');
    expect(plain.headers.etag).not.toBe(first.headers.etag);
    // Options at their default ask for nothing: the plain entry.
    const defaults = await shot({
      url,
      fullPage: 'false',
      darkMode: '0',
      scale: '1',
      format: 'png',
      delay: '0',
      fresh: 'false',
    });
    expect(defaults.headers['x-cache']).toBe('HIT');
    expect(defaults.headers.etag).toBe(plain.headers.etag);
    expect(defaults.headers['x-page-height']).toBeUndefined();
  });

  it('keys each option set apart, serves each with its own type, and 304s by ETag', async () => {
    const url = `${pages.url}/split?sets`;
    const sets: Record<string, string>[] = [
      {},
      { format: 'jpeg' },
      { format: 'jpeg', quality: '50' },
      { darkMode: 'true' },
      { scale: '2' },
    ];
    const etags = new Set<string>();
    for (const set of sets) {
      const res = await shot({ url, ...set });
      expect({ set, cache: res.headers['x-cache'] }).toEqual({ set, cache: 'MISS' });
      etags.add(String(res.headers.etag));
    }
    expect(etags.size).toBe(sets.length);
    const hit = await shot({ url, format: 'jpeg', quality: '80' });
    expect([hit.headers['x-cache'], hit.headers['content-type']]).toEqual(['HIT', 'image/jpeg']);
    const again = await shot({ url, format: 'jpeg' }, { 'if-none-match': String(hit.headers.etag) });
    expect(again.statusCode).toBe(304);
  });

  it('ttl sets the cache lifetime and Cache-Control max-age, on a miss and on a hit', async () => {
    const url = `${pages.url}/split?ttl`;
    const first = await shot({ url, ttl: '3600' });
    expect(first.headers['cache-control']).toBe('public, max-age=3600, s-maxage=3600');
    const hit = await shot({ url, ttl: '7200' });
    expect(hit.headers['x-cache']).toBe('HIT');
    expect(hit.headers['cache-control']).toBe('public, max-age=7200, s-maxage=7200');
    const plain = await shot({ url });
    expect(plain.headers['x-cache']).toBe('HIT');
    expect(plain.headers['cache-control']).toBe('public, max-age=3600, s-maxage=3600');
  });

  it('fresh captures again, replaces the cached entry, and counts as a capture', async () => {
    const url = `${pages.url}/opt/counter?fresh`;
    await t.modules.usage.flush();
    const before = await screenshotsCounted();
    const first = await shot({ url });
    const colour = await pixelAt(first.rawPayload, 600, 300);
    const cached = await shot({ url });
    expect(cached.headers['x-cache']).toBe('HIT');
    const fresh = await shot({ url, fresh: 'true' });
    expect(fresh.headers['x-cache']).toBe('MISS');
    expect(await pixelAt(fresh.rawPayload, 600, 300)).not.toEqual(colour);
    expect(fresh.headers.etag).not.toBe(first.headers.etag);
    const after = await shot({ url });
    expect(after.headers['x-cache']).toBe('HIT');
    expect(after.headers.etag).toBe(fresh.headers.etag);
    await t.modules.usage.flush();
    // The first capture and the fresh one; the two hits are cache hits.
    expect((await screenshotsCounted()) - before).toBe(2);
  });
});

async function screenshotsCounted(): Promise<number> {
  const day = new Date().toISOString().slice(0, 10);
  const rows = await t.store.usage(t.account.id, day, day);
  return rows.filter((r) => r.kind === 'screenshot').reduce((sum, r) => sum + r.count, 0);
}
