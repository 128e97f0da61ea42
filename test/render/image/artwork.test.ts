import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.js';
import { sniff } from '../../../src/render/image/artwork-image.js';
import { useArtworkFixture } from '../../helpers/artwork.js';
import { pixelAt, pngSize } from '../../helpers/png.js';
import { closedPort, type ImageFormat } from '../../helpers/servers.js';

const fixture = useArtworkFixture();
const { artwork } = fixture;

/** The AppError a promise rejects with, checked for code; fails when it resolves. */
async function appError(p: Promise<unknown>, code = 'unprocessable'): Promise<AppError> {
  const err = await p.then(
    () => new Error('expected an AppError'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).code).toBe(code);
  return err as AppError;
}

const RED = [255, 0, 0, 255];
const BLUE = [0, 0, 255, 255];

describe('fetch + prepare', () => {
  const formats: ImageFormat[] = ['png', 'jpeg', 'webp', 'gif', 'avif'];

  it.each(formats)(
    'fetches %s and prepares it to exactly the target size (cover and contain)',
    async (fmt) => {
      const a = artwork();
      const got = await a.fetch(`${fixture.fx.url}/image/${fmt}`);
      expect(got.bytes.equals(fixture.fx.images[fmt])).toBe(true);
      expect(got.sha256).toBe(createHash('sha256').update(fixture.fx.images[fmt]).digest('hex'));
      expect(got.ms).toBeGreaterThanOrEqual(0);
      expect(sniff(got.bytes)).toBe(fmt);

      const cover = await a.prepare(got.bytes, { width: 300, height: 120, fit: 'cover' });
      expect([cover.width, cover.height]).toEqual([300, 120]);
      expect(pngSize(cover.data)).toEqual({ width: 300, height: 120 });
      const contain = await a.prepare(got.bytes, { width: 90, height: 200, fit: 'contain' });
      expect(pngSize(contain.data)).toEqual({ width: 90, height: 200 });
      // The 64×48 source is red on the left, blue on the right; contain letterboxes onto transparency.
      expect(near(await pixelAt(contain.data, 5, 100), RED)).toBe(true);
      expect(near(await pixelAt(contain.data, 85, 100), BLUE)).toBe(true);
      expect(near(await pixelAt(cover.data, 10, 60), RED)).toBe(true);
      expect((await pixelAt(contain.data, 45, 5))[3]).toBe(0);
    },
  );

  it('applies the EXIF orientation before resizing', async () => {
    const a = artwork();
    const { bytes } = await a.fetch(`${fixture.fx.url}/image/jpeg-rotated`);
    // 40×20 red|blue with orientation 6 is displayed 20×40 with red on top.
    const out = await a.prepare(bytes, { width: 20, height: 40, fit: 'cover' });
    expect(near(await pixelAt(out.data, 10, 5), RED)).toBe(true);
    expect(near(await pixelAt(out.data, 10, 35), BLUE)).toBe(true);
  });

  it('fills a cover target from an extremely wide or tall image (its centre), instead of refusing it', async () => {
    // 100000×1 and 1×100000: red, then 200 green pixels in the middle, then blue. Scaling either
    // to cover 1000×600 first would make a 60-million-pixel side, which libvips refuses.
    const strip = (long: number) => {
      const raw = Buffer.alloc(long * 3);
      for (let i = 0; i < long; i++) {
        const mid = Math.abs(i - long / 2) < 100;
        raw[i * 3] = !mid && i < long / 2 ? 255 : 0;
        raw[i * 3 + 1] = mid ? 255 : 0;
        raw[i * 3 + 2] = !mid && i > long / 2 ? 255 : 0;
      }
      return raw;
    };
    const a = artwork();
    const wide = await sharp(strip(100_000), { raw: { width: 100_000, height: 1, channels: 3 } })
      .png()
      .toBuffer();
    const tall = await sharp(strip(100_000), { raw: { width: 1, height: 100_000, channels: 3 } })
      .png()
      .toBuffer();
    for (const bytes of [wide, tall]) {
      const out = await a.prepare(bytes, { width: 1000, height: 600, fit: 'cover' });
      expect(pngSize(out.data)).toEqual({ width: 1000, height: 600 });
      expect(near(await pixelAt(out.data, 500, 300), [0, 255, 0, 255])).toBe(true);
      // contain still letterboxes the whole strip.
      const whole = await a.prepare(bytes, { width: 300, height: 120, fit: 'contain' });
      expect(pngSize(whole.data)).toEqual({ width: 300, height: 120 });
    }
  });

  it('draws a small image at most 4× its size, centred, instead of blowing it up into a blur (contain and cover)', async () => {
    const a = artwork();
    const favicon = await sharp({
      create: { width: 16, height: 16, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 1 } },
    })
      .png()
      .toBuffer();
    const out = await a.prepare(favicon, { width: 300, height: 300, fit: 'contain' });
    expect(pngSize(out.data)).toEqual({ width: 300, height: 300 });
    // A 64×64 red square in the middle (118 to 181), transparency around it.
    expect(await pixelAt(out.data, 150, 150)).toEqual([255, 0, 0, 255]);
    expect(await pixelAt(out.data, 120, 179)).toEqual([255, 0, 0, 255]);
    expect((await pixelAt(out.data, 112, 150))[3]).toBe(0);
    expect((await pixelAt(out.data, 150, 188))[3]).toBe(0);
    // cover too: a favicon does not become a blurred fill of the whole window.
    const cover = await a.prepare(favicon, { width: 300, height: 300, fit: 'cover' });
    expect(await pixelAt(cover.data, 150, 150)).toEqual([255, 0, 0, 255]);
    expect((await pixelAt(cover.data, 5, 5))[3]).toBe(0);
    // An image that is small only one way still fills a cover frame.
    const banner = await sharp({
      create: { width: 400, height: 16, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 1 } },
    })
      .png()
      .toBuffer();
    const filled = await a.prepare(banner, { width: 300, height: 300, fit: 'cover' });
    expect(await pixelAt(filled.data, 5, 5)).toEqual([255, 0, 0, 255]);
  });

  it('uses only the first frame of an animated GIF', async () => {
    const a = artwork();
    const { bytes } = await a.fetch(`${fixture.fx.url}/image/gif-animated`);
    const out = await a.prepare(bytes, { width: 32, height: 32, fit: 'cover' });
    expect(pngSize(out.data)).toEqual({ width: 32, height: 32 });
    expect(near(await pixelAt(out.data, 16, 28), RED)).toBe(true);
  });
});

describe('failures name imageUrl and why', () => {
  it('too large', async () => {
    // The default cap is 5 MB (it was 10 MB before issue 20).
    const err = await appError(artwork().fetch(`${fixture.fx.url}/big-chunked`));
    expect(err.message).toBe('imageUrl is larger than 5 MB');
    expect(err.detail).toBe(`body passed ${5_000_000} bytes while streaming`);
    expect((await appError(artwork({ maxBytes: 10_000_000 }).fetch(`${fixture.fx.url}/big`))).message).toBe(
      'imageUrl is larger than 10 MB',
    );
  });

  it('timed out (configurable budget)', async () => {
    const start = performance.now();
    const err = await appError(artwork({ timeoutMs: 300 }).fetch(`${fixture.fx.url}/slow`));
    expect(err.message).toBe('imageUrl timed out after 300 ms');
    expect(performance.now() - start).toBeLessThan(800);
    expect(
      (await appError(artwork({ timeoutMs: 1200 }).fetch(`${fixture.fx.url}/slow-headers`))).message,
    ).toBe('imageUrl timed out after 1.2 s');
  });

  it('not an image, whatever the Content-Type says', async () => {
    const a = artwork();
    const { bytes } = await a.fetch(`${fixture.fx.url}/html-as-png`);
    const err = await appError(a.prepare(bytes, { width: 10, height: 10, fit: 'cover' }));
    expect(err.message).toBe('imageUrl is not a supported image (PNG, JPEG, WebP, GIF or AVIF)');
    for (const other of [
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
      Buffer.from('II*\0'),
      Buffer.alloc(0),
    ]) {
      expect((await appError(a.prepare(other, { width: 10, height: 10, fit: 'cover' }))).message).toBe(
        err.message,
      );
    }
  });

  it('pixel bomb', async () => {
    const a = artwork();
    const { bytes } = await a.fetch(`${fixture.fx.url}/bomb`);
    const err = await appError(a.prepare(bytes, { width: 100, height: 100, fit: 'cover' }));
    expect([err.message, err.detail]).toEqual(['imageUrl has more than 25 megapixels', 'png 10000x10000']);
  });

  it('damaged image with a valid signature', async () => {
    const a = artwork();
    // Cut inside the header, and inside the pixel data.
    for (const end of [40, fixture.fx.images.png.length - 20]) {
      const err = await appError(
        a.prepare(fixture.fx.images.png.subarray(0, end), { width: 10, height: 10, fit: 'cover' }),
      );
      expect(err.message).toBe('imageUrl could not be decoded as PNG');
    }
  });

  it('HTTP status', async () => {
    expect((await appError(artwork().fetch(`${fixture.fx.url}/status/404`))).message).toBe(
      'imageUrl answered HTTP 404',
    );
  });

  it('too many redirects', async () => {
    const a = artwork();
    expect((await a.fetch(`${fixture.fx.url}/chain/3`)).bytes.equals(fixture.fx.images.png)).toBe(true);
    expect((await appError(a.fetch(`${fixture.fx.url}/chain/4`))).message).toBe(
      'imageUrl redirected more than 3 times',
    );
    expect((await appError(a.fetch(`${fixture.fx.url}/loop`))).message).toBe(
      'imageUrl redirected more than 3 times',
    );
  });

  it('unreachable', async () => {
    const port = await closedPort();
    const err = await appError(
      artwork({ allowPrivateHosts: [`127.0.0.1:${port}`] }).fetch(`http://127.0.0.1:${port}/`),
    );
    expect(err.message).toBe('imageUrl could not be reached');
  });

  it.each([
    'not a url',
    '/relative.png',
    'example.com/a.png',
    'file:///etc/passwd',
    'data:image/png;base64,AA==',
  ])('not an absolute http(s) URL: %s', async (url) => {
    const err = await appError(artwork().fetch(url), 'bad_request');
    expect(err.message).toBe('imageUrl must be an absolute http or https URL');
  });
});

describe('cache and coalescing', () => {
  it('a repeated fetch is served from memory without touching the server', async () => {
    const a = artwork();
    const before = fixture.fx.hits('/image/webp');
    const first = await a.fetch(`${fixture.fx.url}/image/webp`);
    const second = await a.fetch(`${fixture.fx.url}/image/webp`);
    expect(fixture.fx.hits('/image/webp') - before).toBe(1);
    expect(second.sha256).toBe(first.sha256);
    expect(second.bytes.equals(first.bytes)).toBe(true);
  });

  it('concurrent fetches of one URL share one request', async () => {
    const a = artwork();
    const before = fixture.fx.hits('/image/avif');
    const all = await Promise.all([1, 2, 3, 4].map(() => a.fetch(`${fixture.fx.url}/image/avif`)));
    expect(fixture.fx.hits('/image/avif') - before).toBe(1);
    expect(new Set(all.map((r) => r.sha256)).size).toBe(1);
  });

  it('entries expire after the TTL, and a TTL of 0 disables the cache', async () => {
    const before = fixture.fx.hits('/image/gif');
    const short = artwork({ cacheTtlMs: 50 });
    await short.fetch(`${fixture.fx.url}/image/gif`);
    await new Promise((r) => setTimeout(r, 120));
    await short.fetch(`${fixture.fx.url}/image/gif`);
    const off = artwork({ cacheTtlMs: 0 });
    await off.fetch(`${fixture.fx.url}/image/gif`);
    await off.fetch(`${fixture.fx.url}/image/gif`);
    expect(fixture.fx.hits('/image/gif') - before).toBe(4);
  });

  it('does not cache an entry larger than the cache, and still serves it', async () => {
    const a = artwork({ cacheMaxBytes: 16 });
    const before = fixture.fx.hits('/image/jpeg');
    await a.fetch(`${fixture.fx.url}/image/jpeg`);
    const again = await a.fetch(`${fixture.fx.url}/image/jpeg`);
    expect(again.bytes.equals(fixture.fx.images.jpeg)).toBe(true);
    expect(fixture.fx.hits('/image/jpeg') - before).toBe(2);
  });

  it('a caller that aborts does not fail the others sharing its fetch', async () => {
    const a = artwork({ timeoutMs: 400 });
    const ac = new AbortController();
    const reason = new Error('gone');
    const quitter = a.fetch(`${fixture.fx.url}/slow`, ac.signal);
    const stayer = a.fetch(`${fixture.fx.url}/slow`);
    ac.abort(reason);
    await expect(quitter).rejects.toBe(reason);
    expect((await appError(stayer)).message).toBe('imageUrl timed out after 400 ms');
  });
});

function near(px: number[], want: number[]): boolean {
  return px.every((v, i) => Math.abs(v - want[i]!) <= 40);
}
