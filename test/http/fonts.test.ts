// @module-tag process
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeMetrics } from '../../src/fonts/metrics.js';
import { createFontStore } from '../../src/fonts/store.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { hostileFonts, interVariable, notoOtf, serifTtf, serifWoff, serifWoff2 } from '../helpers/fonts.js';
import { secondAccount } from '../helpers/webhooks.js';

// POST/GET/DELETE /fonts on a real app (SQLite store, the real checks in a worker thread).
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

const upload = (file: Buffer, family?: string, key?: string, type = 'application/octet-stream') =>
  t.inject({
    method: 'POST',
    url: `/fonts${family === undefined ? '' : `?family=${encodeURIComponent(family)}`}`,
    headers: { 'content-type': type, ...(key ? { 'x-api-key': key } : {}) },
    payload: file,
  });

const removeAll = async () => {
  const list = (await t.inject({ method: 'GET', url: '/fonts' })).json() as { fonts: { id: string }[] };
  for (const f of list.fonts) await t.inject({ method: 'DELETE', url: `/fonts/${f.id}` });
};

describe('uploading each format', () => {
  it.each([
    ['woff2', serifWoff2, 'font/woff2', 'Brand Serif', 700],
    ['woff', serifWoff, 'font/woff', 'Brand Serif', 700],
    ['ttf', serifTtf, 'font/ttf', 'Brand Serif', 700],
    ['otf', notoOtf, 'font/otf', undefined, 400],
  ])('keeps a %s file under the family given, else its own', async (format, make, type, given, weight) => {
    const file = make();
    const family = given ?? 'Noto Sans';
    const res = await upload(file, given, undefined, type);
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({
      family,
      weight,
      weightRange: [weight, weight],
      style: 'normal',
      format,
      axes: [],
      size: file.length,
    });
    expect(body.id).toMatch(/^font_/);
    expect(res.headers.location).toBe(`/fonts/${body.id}`);
    const list = (await t.inject({ method: 'GET', url: '/fonts' })).json();
    expect(list.fonts.map((f: { id: string }) => f.id)).toContain(body.id);
    await removeAll();
  });

  it('keeps a variable font with its weight axis, under the family given', async () => {
    const res = await upload(interVariable(), 'Brand Variable', undefined, 'font/woff2');
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      family: 'Brand Variable',
      weight: 400,
      weightRange: [100, 900],
      format: 'woff2',
      axes: ['opsz', 'wght'],
    });
    await removeAll();
  });

  it('refuses a second face of the same weight in a family, and a bundled family name', async () => {
    expect((await upload(serifWoff2(), 'Brand')).statusCode).toBe(201);
    const again = await upload(serifTtf(), 'brand');
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatch(
      /^family "Brand" already has a 700 face \(font_[\w-]+\); remove it first$/,
    );
    const bundled = await upload(serifWoff2(), 'Inter');
    expect(bundled.statusCode).toBe(400);
    expect(bundled.json()).toEqual({
      error: 'family "Inter" is a bundled family\'s name; upload under another name',
    });
    // The file's own family is a bundled one too: the same answer, naming it.
    const own = await upload(serifWoff2());
    expect(own.json()).toEqual({
      error: 'family "Source Serif 4" is a bundled family\'s name; upload under another name',
    });
    await removeAll();
  });
});

describe('hostile and broken files', () => {
  it.each(hostileFonts().map((h) => [h.name, h] as const))('%s → 400 with the reason', async (_name, h) => {
    const res = await upload(h.file, 'Hostile');
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({ error: h.reason });
  });

  it('a damaged table inside a well-formed file → 400, never a 500 (byte flips in 12 places)', async () => {
    const ttf = serifTtf();
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let i = 0; i < 12; i++) {
      const bad = Buffer.from(ttf);
      // Keep the header and directory (else the sniff refuses it first); scramble a run of the tables.
      const at = 12 + 17 * 16 + (next() % (bad.length - 400));
      for (let j = 0; j < 64; j++) bad[at + j] = next() & 0xff;
      const res = await upload(bad, `Flipped ${i}`);
      expect([201, 400], res.body).toContain(res.statusCode);
      if (res.statusCode === 400) expect(res.json().error).toMatch(/^font rejected: /);
    }
    await removeAll();
  });

  it('an empty body and a JSON body are 400; no key is 401', async () => {
    const empty = await upload(Buffer.alloc(0));
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error).toMatch(/^Send the font file as the request body/);
    const json = await t.inject({ method: 'POST', url: '/fonts', payload: { font: 'x' } });
    expect(json.statusCode).toBe(400);
    const anon = await t.inject({ method: 'GET', url: '/fonts', auth: false });
    expect(anon.statusCode).toBe(401);
    expect(anon.json()).toEqual({ error: 'Missing or invalid API key' });
  });
});

describe('limits', () => {
  it('an 11 MB file → 413 naming the limit', async () => {
    const res = await upload(Buffer.concat([serifTtf(), Buffer.alloc(11 * 1024 * 1024)]));
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: 'font must be at most 10 MB (10485760 bytes)' });
  });

  it('the 21st font → 409 with the message; removing one makes room', async () => {
    // Twenty kept straight through the store (each a real, checked font's row), the 21st over HTTP.
    const store = createFontStore(t.store.db);
    const file = serifWoff2();
    for (let i = 0; i < 20; i++) {
      await store.insertFont({
        id: `font_fill${i}`,
        accountId: t.account.id,
        family: `Fill ${i}`,
        weight: 700,
        weightRange: [700, 700],
        italic: false,
        format: 'woff2',
        axes: [],
        glyphs: 331,
        size: file.length,
        sha256: 'x'.repeat(64),
        data: file,
        metrics: encodeMetrics({
          codePoints: new Uint32Array([65]),
          widths: new Uint16Array([700]),
          weight: 700,
          weightRange: [700, 700],
          scales: {},
        }),
        createdAt: Date.now(),
      });
    }
    const res = await upload(serifWoff2(), 'One Too Many');
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      error: 'This account already has 20 fonts, the most it may keep; remove one first',
    });
    expect((await t.inject({ method: 'DELETE', url: '/fonts/font_fill0' })).statusCode).toBe(204);
    expect((await upload(serifWoff2(), 'One Too Many')).statusCode).toBe(201);
    await removeAll();
  });
});

describe('tenancy', () => {
  it("another account neither lists, deletes nor uses an account's font", async () => {
    const mine = (await upload(serifWoff2(), 'Secret Brand')).json();
    const other = await secondAccount(t);
    const list = await t.inject({ method: 'GET', url: '/fonts', headers: { 'x-api-key': other.key } });
    expect(list.json()).toEqual({ fonts: [] });
    const del = await t.inject({
      method: 'DELETE',
      url: `/fonts/${mine.id}`,
      headers: { 'x-api-key': other.key },
    });
    expect(del.statusCode).toBe(404);
    expect(del.json()).toEqual({ error: `No font "${mine.id}"` });
    // Naming the family in its own theme is refused exactly like a family nobody uploaded.
    const steal = t.modules.themes.set(other.accountId, { fontFamily: 'Secret Brand' });
    await expect(steal).rejects.toThrow(
      'fontFamily "Secret Brand" is not one of this account\'s fonts; upload it first (POST /fonts)',
    );
    const none = t.modules.themes.set(other.accountId, { fontFamily: 'Nobody Uploaded This' });
    await expect(none).rejects.toThrow(
      'fontFamily "Nobody Uploaded This" is not one of this account\'s fonts; upload it first (POST /fonts)',
    );
    expect(await t.modules.themes.fonts?.resolve(other.accountId, 'Secret Brand')).toBeUndefined();
    expect((await t.modules.themes.fonts?.resolve(t.account.id, 'secret brand'))?.family).toBe(
      'Secret Brand',
    );
    await removeAll();
  });
});
