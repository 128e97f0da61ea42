import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTemplateRenderer,
  TAKUMI_VERSION,
  type TemplateRenderer,
} from '../../../src/render/template/renderer.js';
import { DEFAULT_SIZE } from '../../../src/render/template/sizes.js';
import type { CardSize, TemplateFields } from '../../../src/render/template/types.js';
import { detectDirection } from '../../../src/render/text/script.js';
import { productLayout } from '../../../templates/_product-layout.js';
import { saasLayout } from '../../../templates/_saas-layout.js';
import { caseFields, TITLE_200, testArtwork } from '../../golden/cases.js';
import { type BuiltinName, TEMPLATE_NAMES, TEMPLATES } from '../../helpers/builtins.js';
import { sharedEngine } from '../../helpers/engine.js';
import { pngSize } from '../../helpers/png.js';
import { decode, diffPixels, type Rect } from './pixels.js';
import { ALL_SIZES, at, heavyAt } from './sizes.js';

let renderer: TemplateRenderer;
beforeAll(async () => {
  renderer = await createTemplateRenderer(undefined, await sharedEngine());
});
afterAll(() => renderer.close());

const render = async (name: BuiltinName, fields: TemplateFields, size: CardSize = DEFAULT_SIZE) =>
  (await renderer.render(name, fields, { ctx: { size } })).png;

describe('template renderer', () => {
  it('names the pinned engine, the font set and its revision in its version', () => {
    const installed = JSON.parse(readFileSync('node_modules/@takumi-rs/core/package.json', 'utf8')) as {
      version: string;
    };
    expect(TAKUMI_VERSION).toBe(installed.version);
    expect(renderer.version).toMatch(/^takumi-\d+\.\d+\.\d+\/fonts-\d+\/r\d+$/);
  });

  for (const name of TEMPLATE_NAMES) {
    it(`${name} renders every size it declares at that size's pixels`, async () => {
      expect(TEMPLATES[name].sizes).toEqual(ALL_SIZES.map((s) => s.name));
      for (const size of ALL_SIZES) {
        const png = await render(name, await caseFields(name, 'short', size), size);
        expect(pngSize(png), size.name).toEqual({ width: size.width, height: size.height });
      }
    });
  }

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

/**
 * Strips that only decoration may touch: the outer margins, and the gutter between the text and
 * the art (beside it on wide cards, above it on square and story).
 */
function keepOut(name: BuiltinName, withArtwork: boolean, size: CardSize): Rect[] {
  const { width: W, height: H } = size;
  const margins: Rect[] = [
    { x0: 0, y0: 0, x1: W, y1: 48 },
    { x0: 0, y0: H - 46, x1: W, y1: H },
    { x0: 0, y0: 0, x1: 52, y1: H },
    { x0: W - 52, y0: 0, x1: W, y1: H },
  ];
  if (name === 'product') {
    const L = productLayout(size);
    const stage = L.kind === 'row' ? W - L.stage : L.stage;
    margins.push(
      L.kind === 'row'
        ? { x0: stage - 52, y0: 0, x1: stage, y1: H }
        : { x0: 0, y0: stage, x1: W, y1: stage + L.pad - 24 },
    );
  }
  if (name === 'saas' && withArtwork) {
    const L = saasLayout(size);
    margins.push(
      L.kind === 'row'
        ? { x0: 545, y0: 130, x1: 600, y1: H }
        : { x0: 0, y0: L.window.top - 48, x1: W, y1: L.window.top },
    );
  }
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
    for (const size of ALL_SIZES)
      it(
        `${name}${at(size)}: six seeded mixed-script titles and subtitles at full length`,
        heavyAt(size),
        async () => {
          const empty = await decode(await render(name, { title: '' }, size));
          for (let seed = 1; seed <= 6; seed++) {
            const fields = { title: mixedTitle(seed, 200), subtitle: mixedTitle(seed + 100, 300) };
            if (detectDirection(fields.title) === 'rtl') continue;
            const full = await decode(await render(name, fields, size));
            for (const rect of keepOut(name, false, size)) {
              expect(diffPixels(full, empty, 16, rect).count, `seed ${seed}: ${fields.title}`).toBe(0);
            }
          }
        },
      );
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
    for (const size of ALL_SIZES)
      for (const [label, fields] of variants) {
        it(`${name}${at(size)}: ${label}`, heavyAt(size), async () => {
          const art = TEMPLATES[name].artworkSize?.(size);
          const artwork = art ? await testArtwork(art.width, art.height) : undefined;
          const withArt = artwork ? { artwork } : {};
          const full = await decode(await render(name, { ...fields, ...withArt }, size));
          const rtl = label.includes('Arabic');
          // An empty title of the same direction (U+200F RIGHT-TO-LEFT MARK) keeps the same layout.
          const empty = await decode(await render(name, { title: rtl ? '\u200F' : '', ...withArt }, size));
          for (const rect of keepOut(name, artwork !== undefined, size)) {
            // Gutters beside the art are mirrored for RTL; only the outer margins apply there.
            if (rtl && rect.x0 > 52 && rect.x1 < size.width - 52) continue;
            const { count } = diffPixels(full, empty, 16, rect);
            expect(count, `ink in ${JSON.stringify(rect)}`).toBe(0);
          }
        });
      }
  }
});
