import type { Renderer } from '@takumi-rs/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { brandInitial } from '../../../src/render/template/brand.js';
import type { CardSize, ImageSource, Node } from '../../../src/render/template/types.js';
import { FALLBACK_FAMILIES, FAMILY } from '../../../src/render/text/fonts.js';
import { fontStack } from '../../../src/render/text/script.js';
import { productLayout } from '../../../templates/_product-layout.js';
import { TEMPLATES } from '../../helpers/builtins.js';
import { sharedEngine } from '../../helpers/engine.js';
import { decode, type Rect } from './pixels.js';
import { ALL_SIZES, at } from './sizes.js';

/** Inside product's white tile, clear of its rounded corners (775,140–1125,490 at og). */
function tileInside(size: CardSize): Rect {
  const L = productLayout(size);
  const x = L.kind === 'row' ? size.width - L.stage + (L.stage - L.tile) / 2 : (size.width - L.tile) / 2;
  const y = L.kind === 'row' ? (size.height - L.tile) / 2 : (L.stage - L.tile) / 2;
  const inset = Math.round((40 * L.tile) / 430);
  const r = Math.round;
  return { x0: r(x + inset), y0: r(y + inset), x1: r(x + L.tile - inset), y1: r(y + L.tile - inset) };
}

/** The bounding box size of everything not white inside `rect`. */
async function inkSize(png: Buffer, rect: Rect): Promise<{ width: number; height: number }> {
  const { data, width } = await decode(png);
  let [x0, y0, x1, y1] = [Infinity, Infinity, -1, -1];
  for (let y = rect.y0; y < rect.y1; y++) {
    for (let x = rect.x0; x < rect.x1; x++) {
      const i = (y * width + x) * 4;
      if (Math.min(data[i]!, data[i + 1]!, data[i + 2]!) > 200) continue;
      [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
    }
  }
  return { width: x1 - x0 + 1, height: y1 - y0 + 1 };
}

let engine: Renderer;
beforeAll(async () => {
  engine = await sharedEngine();
});

const draw = (node: Node, images: ImageSource[] = [], size: CardSize = ALL_SIZES[0]!) =>
  engine.render(node, {
    width: size.width,
    height: size.height,
    format: 'png',
    images,
    fontFamilies: [...FALLBACK_FAMILIES],
  });

describe('product monogram', () => {
  // Each but the plain "A" once lost a part to the gradient's box: a ring, an accent or a dot
  // above the cap height, the tail of "@" below the baseline (a brand with no letter shows it),
  // Thai marks.
  for (const size of ALL_SIZES)
    for (const brand of ['Ångström', 'Émile', 'ġjy studio', 'أكمي', 'ที่นี่', '@@', 'Acme']) {
      it(`draws all of ${brand}'s initial${at(size)}`, async () => {
        const card = TEMPLATES.product.build({ title: 'Monogram', brand }, { size });
        const drawn = await inkSize(await draw(card.node, card.images, size), tileInside(size));
        // The same letter in plain black with room all around: what whole ink measures.
        const whole = await inkSize(
          await draw({
            type: 'container',
            style: {
              width: 1200,
              height: 630,
              display: 'flex',
              alignItems: 'center',
              justifyContent: 'center',
              backgroundColor: '#fff',
            },
            children: [
              {
                type: 'text',
                text: brandInitial(brand),
                style: {
                  fontFamily: fontStack(brand, FAMILY.sans),
                  fontSize: productLayout(size).monogram,
                  fontWeight: 800,
                  lineHeight: 2.5,
                },
              },
            ],
          }),
          { x0: 0, y0: 0, x1: 1200, y1: 630 },
        );
        expect(Math.abs(drawn.height - whole.height), 'ink height').toBeLessThanOrEqual(3);
        expect(Math.abs(drawn.width - whole.width), 'ink width').toBeLessThanOrEqual(3);
      });
    }
});

describe('product brand pill', () => {
  it('sets a Greek brand in capitals without the tonos ("ΕΛΛΗΝΙΚΗ", not "ΕΛΛΗΝΙΚΉ")', () => {
    const texts: string[] = [];
    const walk = (n: Node) => {
      if (n.type === 'text') texts.push(n.text ?? '');
      if ('children' in n && Array.isArray(n.children)) for (const c of n.children as Node[]) walk(c);
    };
    walk(TEMPLATES.product.build({ title: 'Συνέδριο', brand: 'Ελληνική Εταιρεία' }).node);
    expect(texts).toContain('ΕΛΛΗΝΙΚΗ ΕΤΑΙΡΕΙΑ');
  });
});
