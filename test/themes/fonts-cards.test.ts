// @module-tag process
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { interVariable, serifTtf, serifWoff2 } from '../helpers/fonts.js';
import { decode, diffPixels } from '../render/template/pixels.js';

// An uploaded font on real cards: the theme names it, the renderer loads it, scripts it lacks
// fall back to the bundled Noto families. The PNGs are kept in $TMPDIR/cardshot-font-cards.
let t: TestApp;
const out = path.join(os.tmpdir(), 'cardshot-font-cards');
beforeAll(async () => {
  t = await startTestApp();
  mkdirSync(out, { recursive: true });
});
afterAll(async () => t?.close());

const COLOURS = { background: '#FBF7F0', text: '#1C1917', accent: '#B45309' };

const upload = async (file: Buffer, family: string) => {
  const res = await t.inject({
    method: 'POST',
    url: `/fonts?family=${encodeURIComponent(family)}`,
    headers: { 'content-type': 'application/octet-stream' },
    payload: file,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string };
};

const card = async (template: string, title: string, name: string) => {
  const res = await t.inject({
    method: 'GET',
    url: `/render/template?template=${template}&title=${encodeURIComponent(title)}`,
  });
  expect(res.statusCode, res.body).toBe(200);
  writeFileSync(path.join(out, `${name}.png`), res.rawPayload);
  return { png: res.rawPayload, etag: res.headers.etag as string };
};

/** Pixels dark enough to be the title's ink (#1C1917 on #FBF7F0). */
async function darkPixels(png: Buffer): Promise<number> {
  const { data } = await decode(png);
  let n = 0;
  for (let i = 0; i < data.length; i += 4) if (data[i]! + data[i + 1]! + data[i + 2]! < 300) n++;
  return n;
}

describe('a theme set in an uploaded font', () => {
  it('draws Latin in the uploaded font, and Japanese and Arabic from the bundled Noto (no boxes)', async () => {
    await upload(serifWoff2(), 'Brand Serif');
    const bundled = async (title: string, name: string) => {
      await t.modules.themes.set(t.account.id, { ...COLOURS, font: 'sans', fontFamily: null });
      return card('blog', title, `${name}-bundled`);
    };
    const uploaded = async (title: string, name: string) => {
      await t.modules.themes.set(t.account.id, { ...COLOURS, font: 'sans', fontFamily: 'Brand Serif' });
      return card('blog', title, `${name}-uploaded`);
    };

    // Latin: the uploaded serif, visibly unlike the bundled Inter.
    const latin = 'Quarterly results: revenue up 40% on brand-new type';
    const [a, b] = [await bundled(latin, 'latin'), await uploaded(latin, 'latin')];
    expect(b.etag).not.toBe(a.etag);
    const latinDiff = diffPixels(await decode(a.png), await decode(b.png));
    expect(latinDiff.count).toBeGreaterThan(5000);

    // Japanese and Arabic, which the Latin-only font lacks: the same glyphs as the bundled
    // theme draws (Noto Sans JP, Noto Sans Arabic) at the same size, so the same ink (the lines
    // may sit a pixel or two apart: the line box follows the uploaded font's ascent). A box for
    // a missing glyph would be a hollow rectangle: far less ink than a CJK or Arabic glyph.
    for (const [name, title] of [
      ['japanese', '東京で新しいデザインシステムを発表しました'],
      ['arabic', 'أعلنا اليوم عن نظام تصميم جديد لفريقنا'],
    ] as const) {
      const [x, y] = [await bundled(title, name), await uploaded(title, name)];
      const [inkX, inkY] = [await darkPixels(x.png), await darkPixels(y.png)];
      expect(inkX, name).toBeGreaterThan(10_000);
      expect(Math.abs(inkY - inkX) / inkX, name).toBeLessThan(0.03);
    }
  });

  it('replacing the font changes the card and its ETag; removing it falls back to the bundled look', async () => {
    await t.modules.themes.set(t.account.id, { ...COLOURS, font: 'sans', fontFamily: 'Brand Serif' });
    const before = await card('saas', 'Ship cards in your own type', 'replace-before');
    const list = (await t.inject({ method: 'GET', url: '/fonts' })).json() as { fonts: { id: string }[] };
    for (const f of list.fonts) await t.inject({ method: 'DELETE', url: `/fonts/${f.id}` });
    const gone = await card('saas', 'Ship cards in your own type', 'replace-gone');
    expect(gone.etag).not.toBe(before.etag);
    await upload(serifTtf(), 'Brand Serif');
    const after = await card('saas', 'Ship cards in your own type', 'replace-after');
    expect(after.etag).not.toBe(before.etag);
    expect(after.etag).not.toBe(gone.etag);
    // Same outlines from another file of the same font: the same pixels, under a new ETag.
    expect(diffPixels(await decode(before.png), await decode(after.png)).count).toBeLessThan(200);
  });

  it("uses a variable font's weight axis", async () => {
    await upload(interVariable(), 'Brand Variable');
    const font = await t.modules.themes.fonts?.resolve(t.account.id, 'brand variable');
    expect(font).toBeDefined();
    const engine = await t.modules.renderer.fonts.acquire(font);
    const ink = async (weight: number) => {
      const raw = await engine.render(
        {
          type: 'container',
          style: { display: 'flex', width: 800, height: 120, backgroundColor: '#ffffff' },
          children: [
            {
              type: 'text',
              text: 'Hamburgefonstiv',
              style: { fontFamily: font!.engineName, fontSize: 64, fontWeight: weight, color: '#000000' },
            },
          ],
        },
        { width: 800, height: 120, format: 'raw' },
      );
      let n = 0;
      for (let i = 0; i < raw.length; i += 4) if (raw[i]! < 128) n++;
      return n;
    };
    const [light, regular, heavy] = [await ink(200), await ink(400), await ink(800)];
    expect(regular / light).toBeGreaterThan(1.3);
    expect(heavy / regular).toBeGreaterThan(1.5);
    await t.modules.themes.set(t.account.id, { ...COLOURS, font: 'sans', fontFamily: 'Brand Variable' });
    await card('product', 'Variable type, drawn at 800', 'variable-product');
  });
});
