import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/errors.js';

// format and quality on both card routes (issue 17 §1): the PNG stays the default and is
// unchanged, byte for byte, with the same ETag; the other formats are real images of the card.
let t: TestApp;
const card = { template: 'saas', title: 'Formats for every card', brand: 'Acme' };

const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  t.inject({ method: 'POST', url: '/render/template', payload: body, headers });
const get = (query: Record<string, string>) =>
  t.inject({ method: 'GET', url: `/render/template?${new URLSearchParams(query)}` });

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('/render/template: format and quality', () => {
  it('keeps PNG the default: format=png is the same answer, bytes and ETag as no format', async () => {
    const plain = await post(card);
    const png = await post({ ...card, format: 'png' });
    const viaGet = await get({ ...card, format: 'png' });
    for (const res of [plain, png, viaGet]) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('image/png');
      expect(res.headers.etag).toBe(plain.headers.etag);
      expect(res.rawPayload.equals(plain.rawPayload)).toBe(true);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
  });

  it.each([
    ['jpeg', 'image/jpeg', 'jpeg', [0xff, 0xd8, 0xff]],
    ['webp', 'image/webp', 'webp', [0x52, 0x49, 0x46, 0x46]],
    ['avif', 'image/avif', 'heif', [0x00, 0x00, 0x00]],
  ])(
    'format=%s answers %s, a 1200×630 image of the card, on POST and GET alike',
    async (format, type, sharpFormat, head) => {
      const res = await post({ ...card, format });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe(type);
      expect([...res.rawPayload.subarray(0, head.length)]).toEqual(head);
      if (format === 'avif') expect(res.rawPayload.toString('ascii', 4, 12)).toBe('ftypavif');
      const meta = await sharp(res.rawPayload).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual([sharpFormat, 1200, 630]);
      // The saas card is dark: the decoded image is the card, not an empty canvas.
      const { dominant } = await sharp(res.rawPayload).stats();
      expect(dominant.r + dominant.g + dominant.b).toBeLessThan(200);
      const viaGet = await get({ ...card, format });
      expect(viaGet.headers.etag).toBe(res.headers.etag);
      expect(viaGet.rawPayload.equals(res.rawPayload)).toBe(true);
      expect(res.headers.etag).not.toBe((await post(card)).headers.etag);
    },
  );

  it('quality changes the size and the ETag; the default quality is the same card', async () => {
    const low = await post({ ...card, format: 'jpeg', quality: 20 });
    const high = await post({ ...card, format: 'jpeg', quality: 95 });
    expect(low.rawPayload.length).toBeLessThan(high.rawPayload.length * 0.7);
    expect(low.headers.etag).not.toBe(high.headers.etag);
    const byDefault = await post({ ...card, format: 'jpeg' });
    const eighty = await get({ ...card, format: 'jpeg', quality: '80' });
    expect(eighty.headers.etag).toBe(byDefault.headers.etag);
  });

  it('serves the cache and 304 per format', async () => {
    const first = await post({ ...card, title: 'Cached as WebP', format: 'webp' });
    expect(first.headers['x-cache']).toBe('MISS');
    const again = await post({ ...card, title: 'Cached as WebP', format: 'webp' });
    expect([again.headers['x-cache'], again.headers['content-type']]).toEqual(['HIT', 'image/webp']);
    const revalidated = await post(
      { ...card, title: 'Cached as WebP', format: 'webp' },
      { 'if-none-match': String(first.headers.etag) },
    );
    expect(revalidated.statusCode).toBe(304);
    expect(first.headers['server-timing']).toMatch(/encode;dur=[\d.]+/);
  });

  it.each([
    [{ format: 'gif' }, 'format must be one of: png, jpeg, webp, avif (got "gif")'],
    [{ format: 5 }, 'format must be one of: png, jpeg, webp, avif (got number)'],
    [{ format: 'jpeg', quality: 0 }, 'quality must be a whole number from 1 to 100 (got "0")'],
    [{ format: 'jpeg', quality: 80.5 }, 'quality must be a whole number from 1 to 100 (got "80.5")'],
    [{ format: 'jpeg', quality: '80' }, 'quality must be a whole number from 1 to 100 (got "80")'],
    [
      { quality: 80 },
      'quality applies to jpeg, webp and avif only; leave it out, or add format=jpeg, webp or avif',
    ],
  ])('POST %j: 400', async (extra, message) => {
    await expectError(await post({ ...card, ...extra }), 400, message);
  });

  it.each([
    [{ format: 'JPEG' }, 'format must be one of: png, jpeg, webp, avif (got "JPEG")'],
    [{ format: 'webp', quality: '1e2' }, 'quality must be a whole number from 1 to 100 (got "1e2")'],
    [
      { format: 'png', quality: '80' },
      'quality applies to jpeg, webp and avif only; leave it out, or add format=jpeg, webp or avif',
    ],
  ])('GET %j: 400', async (extra, message) => {
    await expectError(await get({ ...card, ...extra }), 400, message);
  });

  it('refuses a format given twice in the query', async () => {
    const res = await t.inject({
      method: 'GET',
      url: `/render/template?template=blog&title=x&format=png&format=jpeg`,
    });
    await expectError(res, 400, 'format must be given once');
  });
});
