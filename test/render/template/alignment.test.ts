import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTemplateRenderer, type TemplateRenderer } from '../../../src/render/template/renderer.js';
import type { CardSize, TemplateFields } from '../../../src/render/template/types.js';
import { productLayout } from '../../../templates/_product-layout.js';
import type { BuiltinName } from '../../helpers/builtins.js';
import { sharedEngine } from '../../helpers/engine.js';
import { decode, type Rgba } from './pixels.js';
import { ALL_SIZES, at } from './sizes.js';

/** Each template's title and subtitle colours (a card without brand has no other text). */
const INK: Record<BuiltinName, { title: number[]; subtitle: number[] }> = {
  blog: { title: [0x1f, 0x1a, 0x17], subtitle: [0x6b, 0x62, 0x5a] },
  product: { title: [0x0c, 0x0a, 0x09], subtitle: [0x57, 0x53, 0x4e] },
  saas: { title: [0xff, 0xff, 0xff], subtitle: [0xa1, 0xa1, 0xb5] },
};

interface Extent {
  left: number;
  right: number;
  bottom: number;
}

/** Where pixels of `color` lie, in columns left of `limit` and rows from `top` down. */
function inkExtent(card: Rgba, color: number[], limit: number, top = 0): Extent {
  const extent = { left: Infinity, right: -1, bottom: -1 };
  for (let y = top; y < card.height; y++) {
    for (let x = 0; x < limit; x++) {
      const i = (y * card.width + x) * 4;
      if (!color.every((c, k) => Math.abs(card.data[i + k]! - c) <= 24)) continue;
      extent.left = Math.min(extent.left, x);
      extent.right = Math.max(extent.right, x);
      extent.bottom = y;
    }
  }
  return extent;
}

/** Where a template's text lies: left of `limit`, below `top`. */
function textRegion(name: BuiltinName, size: CardSize): { limit: number; top: number } {
  if (name !== 'product') return { limit: size.width, top: 0 };
  const L = productLayout(size);
  return L.kind === 'row' ? { limit: size.width - L.stage, top: 0 } : { limit: size.width, top: L.stage };
}

let renderer: TemplateRenderer;
beforeAll(async () => {
  renderer = await createTemplateRenderer(undefined, await sharedEngine());
});
afterAll(() => renderer.close());

describe('a subtitle in the other direction aligns with its title', () => {
  const arabic = 'أسبوع الإطلاق في أكمي';
  const cases: [BuiltinName, TemplateFields, 'left' | 'right'][] = [
    ['blog', { title: arabic, subtitle: 'Welcome to launch week, everyone' }, 'right'],
    ['saas', { title: arabic, subtitle: 'Welcome to launch week, everyone' }, 'right'],
    ['product', { title: 'Launch week at Acme', subtitle: arabic }, 'left'],
    ['saas', { title: 'Launch week at Acme', subtitle: arabic }, 'left'],
  ];
  for (const [name, fields, edge] of cases) {
    for (const size of ALL_SIZES)
      it(`${name}${at(size)}: "${fields.subtitle}" under "${fields.title}" is flush ${edge}`, async () => {
        const card = await decode((await renderer.render(name, fields, { ctx: { size } })).png);
        // Product's stage, beside or above its text, is no part of the text.
        const { limit, top } = textRegion(name, size);
        const title = inkExtent(card, INK[name].title, limit, top);
        // Below the title: the title's anti-aliased edges pass through the subtitle's colour.
        const subtitle = inkExtent(card, INK[name].subtitle, limit, title.bottom + 1);
        expect(subtitle.right).toBeGreaterThan(0);
        // Side bearings differ between faces and sizes by a few pixels; misalignment was 100+.
        expect(Math.abs(subtitle[edge] - title[edge])).toBeLessThanOrEqual(12);
      });
  }
});
