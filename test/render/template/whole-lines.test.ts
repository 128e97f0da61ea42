import type { MeasuredNode, Renderer } from '@takumi-rs/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { inspectCard } from '../../../src/render/template/check-layout.js';
import type { BuiltCard, CardSize, Node, TemplateFields } from '../../../src/render/template/types.js';
import { FALLBACK_FAMILIES } from '../../../src/render/text/fonts.js';
import { type BuiltinName, TEMPLATE_NAMES, TEMPLATES } from '../../helpers/builtins.js';
import { sharedEngine } from '../../helpers/engine.js';
import { LONG_HEADLINES } from './long-headlines.js';
import { decode, type Rgba } from './pixels.js';
import { ALL_SIZES, at } from './sizes.js';

/** Lines laid out in a card's first paragraph frame (the title's), from takumi's layout. */
async function titleLines(engine: Renderer, { node, images }: BuiltCard, size: CardSize): Promise<number> {
  const measured = await engine.measure(node, {
    width: size.width,
    height: size.height,
    images,
    fontFamilies: [...FALLBACK_FAMILIES],
  });
  const find = (n: Node, m: MeasuredNode): number | undefined => {
    const style = ('style' in n ? n.style : undefined) as Record<string, unknown> | undefined;
    const children = 'children' in n && Array.isArray(n.children) ? (n.children as Node[]) : [];
    if (style?.overflow === 'hidden' && typeof style.maxHeight === 'number' && children.length === 1) {
      const text = (children[0]!.style ?? {}) as { fontSize: number; lineHeight: number };
      return Math.round(m.children[0]!.height / (text.fontSize * text.lineHeight));
    }
    for (const [i, child] of children.entries()) {
      const found = find(child, m.children[i]!);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return find(node, measured) ?? 0;
}

let engine: Renderer;
beforeAll(async () => {
  engine = await sharedEngine();
});

describe('a paragraph never draws more lines than its frame shows (no line cut through)', () => {
  for (const name of TEMPLATE_NAMES) {
    for (const size of ALL_SIZES)
      it(`${name}${at(size)}: long headlines in ${Object.keys(LONG_HEADLINES).join(', ')}, with and without emoji`, async () => {
        for (const [script, headline] of Object.entries(LONG_HEADLINES)) {
          for (const title of [headline, `${headline} 🚀`]) {
            for (const subtitle of [undefined, 'सीआई में कैशिंग के लिए एक फील्ड गाइड']) {
              const fields: TemplateFields = { title, ...(subtitle ? { subtitle } : {}) };
              const label = `${script}${title === headline ? '' : ' + emoji'}${subtitle ? ' + subtitle' : ''}`;
              // The same checker `npx cardshot templates check` runs on every template, at every size.
              const card = TEMPLATES[name].build(fields, { size });
              expect(await inspectCard(engine, card, size), label).toEqual([]);
            }
          }
        }
      });
  }
});

/** The headline colour of each template, which nothing else on a card without brand uses. */
const TITLE_INK: Record<BuiltinName, [number, number, number]> = {
  blog: [0x1f, 0x1a, 0x17],
  product: [0x0c, 0x0a, 0x09],
  saas: [0xff, 0xff, 0xff],
};

/**
 * Runs of rows holding title-coloured pixels; a gap of up to 3 blank rows (an accent floating
 * over its letter) does not end a run.
 */
function inkBands(card: Rgba, ink: [number, number, number]): number {
  let bands = 0;
  let last = -Infinity;
  for (let y = 0; y < card.height; y++) {
    let hit = false;
    for (let x = 0; x < card.width && !hit; x++) {
      const i = (y * card.width + x) * 4;
      hit = ink.every((c, k) => Math.abs(card.data[i + k]! - c) <= 24);
    }
    if (!hit) continue;
    if (y - last > 4) bands++;
    last = y;
  }
  return bands;
}

describe('stacked accents keep clear of the line above', () => {
  const title = 'Ở Việt Nam, Những Điều Bạn Cần Biết Về Kiến Trúc Phần Mềm Ấn Tượng Để Ổn Định';
  for (const name of TEMPLATE_NAMES) {
    for (const size of ALL_SIZES)
      it(`${name}${at(size)}: a Vietnamese headline's lines do not touch`, async () => {
        const card = TEMPLATES[name].build({ title }, { size });
        const lines = await titleLines(engine, card, size);
        expect(lines).toBeGreaterThan(1);
        const png = await engine.render(card.node, {
          width: size.width,
          height: size.height,
          format: 'png',
          images: card.images,
          fontFamilies: [...FALLBACK_FAMILIES],
        });
        // Touching lines merge into one run of inked rows.
        expect(inkBands(await decode(png), TITLE_INK[name])).toBeGreaterThanOrEqual(lines);
      });
  }
});
