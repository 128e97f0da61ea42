import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTemplateRenderer, type TemplateRenderer } from '../../../src/render/template/renderer.js';
import { DEFAULT_SIZE } from '../../../src/render/template/sizes.js';
import { contrast, decorCacheSize, mutedTone } from '../../../src/render/template/theme.js';
import type { BuildContext, CardTheme } from '../../../src/render/template/types.js';
import { caseFields, goldenPath } from '../../golden/cases.js';
import { LOGO_GOLD, LOGO_TEAL, testTheme } from '../../golden/theme.js';
import { TEMPLATE_NAMES, TEMPLATES } from '../../helpers/builtins.js';
import { sharedEngine } from '../../helpers/engine.js';
import { decode, type Rect, type Rgba } from './pixels.js';
import { ALL_SIZES, at } from './sizes.js';

let renderer: TemplateRenderer;
beforeAll(async () => {
  renderer = await createTemplateRenderer(undefined, await sharedEngine());
});
afterAll(() => renderer.close());

const rgb = (hex: string) => [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));

/** Pixels within `tolerance` of `color` in every channel, inside `rect` (default: all). */
function count(card: Rgba, color: number[], tolerance: number, rect?: Rect): number {
  const r = rect ?? { x0: 0, y0: 0, x1: card.width, y1: card.height };
  let n = 0;
  for (let y = r.y0; y < r.y1; y++)
    for (let x = r.x0; x < r.x1; x++) {
      const i = (y * card.width + x) * 4;
      if (color.every((c, k) => Math.abs(card.data[i + k]! - c) <= tolerance)) n++;
    }
  return n;
}

/** The box around every pixel of the test logo's two colours. */
function logoBox(card: Rgba, rect: Rect): Rect & { pixels: number } {
  const box = { x0: Infinity, y0: Infinity, x1: -1, y1: -1, pixels: 0 };
  for (let y = rect.y0; y < rect.y1; y++)
    for (let x = rect.x0; x < rect.x1; x++) {
      const i = (y * card.width + x) * 4;
      const hit = [LOGO_TEAL, LOGO_GOLD].some((c) => c.every((v, k) => Math.abs(card.data[i + k]! - v) <= 8));
      if (!hit) continue;
      box.pixels++;
      [box.x0, box.y0] = [Math.min(box.x0, x), Math.min(box.y0, y)];
      [box.x1, box.y1] = [Math.max(box.x1, x + 1), Math.max(box.y1, y + 1)];
    }
  return box;
}

/** Where each template draws its brand mark at og (the product tile shows the logo without artwork). */
const MARK: Record<(typeof TEMPLATE_NAMES)[number], Rect> = {
  blog: { x0: 78, y0: 66, x1: 260, y1: 114 },
  product: { x0: 735, y0: 100, x1: 1165, y1: 530 },
  saas: { x0: 70, y0: 70, x1: 252, y1: 118 },
};

const render = async (name: (typeof TEMPLATE_NAMES)[number], ctx: BuildContext, artwork = false) =>
  decode(
    (await renderer.render(name, await caseFields(name, artwork ? 'artwork' : 'short', ctx.size), { ctx }))
      .png,
  );

describe('a themed card shows the theme', () => {
  let theme: CardTheme;
  let noLogo: CardTheme;
  beforeAll(async () => {
    theme = await testTheme();
    noLogo = await testTheme({ logo: undefined });
  });

  for (const name of TEMPLATE_NAMES) {
    for (const size of ALL_SIZES) {
      it(`${name}${at(size)}: the theme's background is the card's ground and its accent is drawn`, async () => {
        const card = await render(name, { size, theme: noLogo });
        const total = size.width * size.height;
        expect(count(card, rgb(noLogo.background), 3) / total, 'background share').toBeGreaterThan(0.25);
        // saas lights the accent as glows and a gradient mark, never as a flat fill.
        const tolerance = name === 'saas' ? 40 : 12;
        expect(count(card, rgb(noLogo.accent), tolerance), 'accent pixels').toBeGreaterThan(150);
        const plain = await render(name, { size });
        expect(count(plain, rgb(noLogo.background), 3), 'background without the theme').toBe(0);
        expect(count(plain, rgb(noLogo.accent), tolerance), 'accent without the theme').toBe(0);
      });
    }

    it(`${name}: the logo is drawn where the mark goes, contained (3:1 stays 3:1)`, async () => {
      const card = await render(name, { size: DEFAULT_SIZE, theme });
      const box = logoBox(card, MARK[name]);
      expect(box.pixels, 'logo pixels in the mark').toBeGreaterThan(400);
      // Contained, never stretched: the drawn ink keeps the logo's own ink proportions.
      const source = await decode(theme.logo!.data);
      const own = logoBox(source, { x0: 0, y0: 0, x1: source.width, y1: source.height });
      const ratio = (box.x1 - box.x0) / (box.y1 - box.y0);
      expect(ratio / ((own.x1 - own.x0) / (own.y1 - own.y0))).toBeCloseTo(1, 1);
      const plain = await render(name, { size: DEFAULT_SIZE });
      expect(logoBox(plain, MARK[name]).pixels, 'logo pixels without the theme').toBe(0);
    });

    it(`${name}: at og without a theme (or with theme undefined) the card is byte-identical to its golden`, async () => {
      const golden = readFileSync(goldenPath(name, 'short'));
      const fields = await caseFields(name, 'short');
      expect((await renderer.render(name, fields)).png.equals(golden)).toBe(true);
      const ctx = { size: DEFAULT_SIZE, theme: undefined };
      expect((await renderer.render(name, fields, { ctx })).png.equals(golden)).toBe(true);
    });
  }

  it('the theme font sets the headline: serif and sans give different cards', async () => {
    const serif = await testTheme({ font: 'serif' });
    const a = await renderer.render(
      'saas',
      { title: 'Typeface test' },
      { ctx: { size: DEFAULT_SIZE, theme } },
    );
    const b = await renderer.render(
      'saas',
      { title: 'Typeface test' },
      { ctx: { size: DEFAULT_SIZE, theme: serif } },
    );
    expect(a.png.equals(b.png)).toBe(false);
  });
});

describe('theme tones and decor', () => {
  it('a low-contrast theme still gets subtitles at 4.5:1 or better', () => {
    for (const [text, bg] of [
      ['#777777', '#FFFFFF'],
      ['#F8FAFC', '#0B1F3A'],
      ['#222222', '#DDDDDD'],
    ] as const) {
      const tone = mutedTone(text, bg);
      expect(contrast(tone, bg) >= 4.5 || tone === text, `${text} on ${bg}`).toBe(true);
    }
  });

  it('keeps the themed decor cache bounded however many themes render', async () => {
    const base = await testTheme();
    for (let i = 0; i < 300; i++) {
      const theme = {
        ...base,
        accent: `#${(i * 4099).toString(16).padStart(6, '0').slice(-6)}`,
        version: `v${i}`,
      };
      for (const name of TEMPLATE_NAMES) TEMPLATES[name].build({ title: 'x' }, { size: DEFAULT_SIZE, theme });
    }
    expect(decorCacheSize()).toBeLessThanOrEqual(128);
  });

  it('the same theme version reuses its decor bytes (no rebuild per render)', async () => {
    const theme = await testTheme();
    const ctx = { size: DEFAULT_SIZE, theme };
    const first = TEMPLATES.blog.build({ title: 'a' }, ctx).images.find((i) => i.src.includes('blog/decor'));
    const again = TEMPLATES.blog.build({ title: 'b' }, ctx).images.find((i) => i.src.includes('blog/decor'));
    expect(again!.data).toBe(first!.data);
    expect(first!.src).toContain(theme.version.slice(0, 16));
  });
});
