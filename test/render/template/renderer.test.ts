import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BuiltinName } from '../../../src/render/template/registry.js';
import { TEMPLATE_NAMES, TEMPLATES } from '../../../src/render/template/registry.js';
import {
  createTemplateRenderer,
  TAKUMI_VERSION,
  type TemplateRenderer,
} from '../../../src/render/template/renderer.js';
import { DEFAULT_SIZE } from '../../../src/render/template/sizes.js';
import type { TemplateFields } from '../../../src/render/template/types.js';
import { detectDirection } from '../../../src/render/text/script.js';
import { caseFields, TITLE_200, testArtwork } from '../../golden/cases.js';
import { sharedEngine } from '../../helpers/engine.js';
import { pngSize } from '../../helpers/png.js';
import { decode, diffPixels, type Rect } from './pixels.js';

let renderer: TemplateRenderer;
beforeAll(async () => {
  renderer = await createTemplateRenderer(undefined, await sharedEngine());
});
afterAll(() => renderer.close());

const render = async (name: BuiltinName, fields: TemplateFields) => (await renderer.render(name, fields)).png;

describe('template renderer', () => {
  it('names the pinned engine, the font set and its revision in its version', () => {
    const installed = JSON.parse(readFileSync('node_modules/@takumi-rs/core/package.json', 'utf8')) as {
      version: string;
    };
    expect(TAKUMI_VERSION).toBe(installed.version);
    expect(renderer.version).toMatch(/^takumi-\d+\.\d+\.\d+\/fonts-\d+\/r\d+$/);
  });

  it.each(TEMPLATE_NAMES)('%s renders a 1200×630 PNG', async (name) => {
    const png = await render(name, await caseFields(name, 'short'));
    expect(pngSize(png)).toEqual({ width: 1200, height: 630 });
  });

  it('renders byte-identical PNGs for identical inputs, even from a second process-wide renderer', async () => {
    const fields = await caseFields('saas', 'max');
    const first = await render('saas', fields);
    await render('blog', await caseFields('blog', 'cjk'));
    expect((await render('saas', fields)).equals(first)).toBe(true);
    const other = await createTemplateRenderer();
    try {
      expect((await other.render('saas', fields)).png.equals(first)).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('ignores the fields a template does not draw', async () => {
    const artwork = await testArtwork(400, 400);
    for (const name of TEMPLATE_NAMES) {
      const def = TEMPLATES[name];
      const base = { title: 'Ignored fields', subtitle: 'Same card' };
      const plain = await render(name, base);
      if (!def.uses.brand)
        expect((await render(name, { ...base, brand: 'Ignored' })).equals(plain)).toBe(true);
      if (!def.uses.artwork) expect((await render(name, { ...base, artwork })).equals(plain)).toBe(true);
    }
    expect(TEMPLATE_NAMES.some((n) => !TEMPLATES[n].uses.artwork)).toBe(true);
  });

  it('keeps a 200-character title p50 under 50 ms over 20 renders (loose: shared machine)', async () => {
    const fields = { title: TITLE_200, subtitle: 'Subtitle', brand: 'Acme' };
    await render('blog', fields);
    const times: number[] = [];
    for (let i = 0; i < 20; i++) times.push((await renderer.render('blog', fields)).timings.render);
    times.sort((a, b) => a - b);
    expect(times[10]).toBeLessThan(50);
  });
});

/** Strips that only decoration may touch: the outer margins, and the gutter next to the art. */
function keepOut(name: BuiltinName, withArtwork: boolean): Rect[] {
  const margins: Rect[] = [
    { x0: 0, y0: 0, x1: 1200, y1: 48 },
    { x0: 0, y0: 584, x1: 1200, y1: 630 },
    { x0: 0, y0: 0, x1: 52, y1: 630 },
    { x0: 1148, y0: 0, x1: 1200, y1: 630 },
  ];
  if (name === 'product') margins.push({ x0: 648, y0: 0, x1: 700, y1: 630 });
  if (name === 'saas' && withArtwork) margins.push({ x0: 545, y0: 130, x1: 600, y1: 630 });
  return margins;
}

/** Words from every supported script, mixed by a seeded generator (same cases every run). */
const WORDS = [
  'launch',
  'Überschrift',
  'https://example.com/a/very/long/path',
  'привет',
  'κόσμε',
  '冷启动',
  'タイトル',
  '한국어',
  'مرحبا',
  'שלום',
  'हिन्दी',
  'ภาษาไทย',
  '🚀',
  '👩‍💻',
  '🇯🇵',
  '1️⃣',
  'supercalifragilisticexpialidocious',
];
function mixedTitle(seed: number, length: number): string {
  let x = seed;
  let out = '';
  while ([...out].length < length) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    out += `${WORDS[x % WORDS.length]} `;
  }
  return [...out].slice(0, length).join('').trim();
}

describe('long text stays inside its box', () => {
  for (const name of TEMPLATE_NAMES) {
    it(`${name}: six seeded mixed-script titles and subtitles at full length`, async () => {
      const empty = await decode(await render(name, { title: '' }));
      for (let seed = 1; seed <= 6; seed++) {
        const fields = { title: mixedTitle(seed, 200), subtitle: mixedTitle(seed + 100, 300) };
        if (detectDirection(fields.title) === 'rtl') continue;
        const full = await decode(await render(name, fields));
        for (const rect of keepOut(name, false)) {
          expect(diffPixels(full, empty, 16, rect).count, `seed ${seed}: ${fields.title}`).toBe(0);
        }
      }
    });
  }

  const url = `https://example.com/${'a'.repeat(180)}`;
  const variants: [string, Omit<TemplateFields, 'artwork'>][] = [
    [
      'every field at its maximum',
      { title: TITLE_200, subtitle: 'word '.repeat(60).trim(), brand: 'B'.repeat(60) },
    ],
    [
      'a 200-character unbroken token',
      { title: url, subtitle: url.repeat(2).slice(0, 300), brand: url.slice(0, 60) },
    ],
    ['a 200-character Arabic title', { title: 'وقت بدء التشغيل '.repeat(13).slice(0, 200), brand: 'مدونة' }],
    [
      'a 200-character Chinese title',
      { title: '冷启动时间缩短百分之八十'.repeat(17).slice(0, 200), subtitle: '字体'.repeat(150) },
    ],
  ];
  for (const name of TEMPLATE_NAMES) {
    for (const [label, fields] of variants) {
      it(`${name}: ${label}`, async () => {
        const size = TEMPLATES[name].artworkSize?.(DEFAULT_SIZE);
        const artwork = size ? await testArtwork(size.width, size.height) : undefined;
        const withArt = artwork ? { artwork } : {};
        const full = await decode(await render(name, { ...fields, ...withArt }));
        const rtl = label.includes('Arabic');
        // An empty title of the same direction (U+200F RIGHT-TO-LEFT MARK) keeps the same layout.
        const empty = await decode(await render(name, { title: rtl ? '\u200F' : '', ...withArt }));
        for (const rect of keepOut(name, artwork !== undefined)) {
          // Gutters are mirrored for RTL; only the outer margins apply there.
          if (rtl && rect.x0 > 52 && rect.x1 < 1148) continue;
          const { count } = diffPixels(full, empty, 16, rect);
          expect(count, `ink in ${JSON.stringify(rect)}`).toBe(0);
        }
      });
    }
  }
});
