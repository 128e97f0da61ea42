import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPLATE_NAMES } from '../../../src/render/template/registry.js';
import { createTemplateRenderer, type TemplateRenderer } from '../../../src/render/template/renderer.js';
import { testTheme } from '../../golden/theme.js';
import { sharedEngine } from '../../helpers/engine.js';
import { HAS_TESSERACT, ocr } from '../../helpers/ocr.js';
import { ALL_SIZES } from './sizes.js';

/**
 * The title reads back by OCR on every template at every size: a machine that reads it proves
 * the headline is whole, in reading order and clear of the decor, where pixel goldens only prove
 * it did not move. Debian's tesseract (`scripts/setup.mjs --test` installs it).
 */
const TITLE = 'How we cut cold starts by 80% with lazy fonts';

/** Letters and digits only, lower case, single spaces: what OCR gets right about a headline. */
const plain = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9%]+/g, ' ')
    .trim();

/**
 * Reads a card at a third of its size (titles stay 24 px or taller, tesseract's sweet spot), so
 * fifteen cards read in a few seconds.
 */
const read = (png: Buffer) => ocr(png, 1 / 3);

let renderer: TemplateRenderer;
beforeAll(async () => {
  renderer = await createTemplateRenderer(undefined, await sharedEngine());
});
afterAll(() => renderer.close());

describe.skipIf(!HAS_TESSERACT && process.env.CI !== 'true')('titles read back by OCR', () => {
  it('every template at every size, plain and themed', { tags: ['process'], timeout: 30_000 }, async () => {
    const theme = await testTheme();
    const cards = TEMPLATE_NAMES.flatMap((template) =>
      ALL_SIZES.map((size, i) => ({
        template,
        size,
        // Every other card themed: the theme's colours and font must read as well as the house look.
        ctx: i % 2 ? { size, theme } : { size },
      })),
    );
    const results = await Promise.all(
      cards.map(async ({ template, size, ctx }) => {
        const fields = { title: TITLE, subtitle: 'A deep dive into subsetting', brand: 'Acme Engineering' };
        const { png } = await renderer.render(template, fields, { ctx });
        return {
          label: `${template} @ ${size.name}${ctx.theme ? ' themed' : ''}`,
          text: await read(png),
        };
      }),
    );
    for (const { label, text } of results) expect(plain(text), label).toContain(plain(TITLE));
  });
});
