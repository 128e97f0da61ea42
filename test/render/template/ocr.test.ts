import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEMPLATE_NAMES } from '../../../src/render/template/registry.js';
import { createTemplateRenderer, type TemplateRenderer } from '../../../src/render/template/renderer.js';
import type { CardSize } from '../../../src/render/template/types.js';
import { testTheme } from '../../golden/theme.js';
import { sharedEngine } from '../../helpers/engine.js';
import { ALL_SIZES } from './sizes.js';

/**
 * The title reads back by OCR on every template at every size: a machine that reads it proves
 * the headline is whole, in reading order and clear of the decor, where pixel goldens only prove
 * it did not move. Debian's tesseract (`scripts/setup.mjs --test` installs it).
 */
const TESSERACT = '/usr/bin/tesseract';
const TITLE = 'How we cut cold starts by 80% with lazy fonts';

/** Letters and digits only, lower case, single spaces: what OCR gets right about a headline. */
const plain = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9%]+/g, ' ')
    .trim();

/**
 * Reads a card: greyscale at a third of its size (titles stay 24 px or taller, tesseract's
 * sweet spot) so fifteen cards read in a few seconds; one thread each, as the cards run side by
 * side.
 */
async function read(png: Buffer, size: CardSize): Promise<string> {
  const input = await sharp(png)
    .resize({ width: Math.round(size.width / 3) })
    .greyscale()
    .png({ compressionLevel: 1 })
    .toBuffer();
  return new Promise((resolve, reject) => {
    const child = execFile(
      TESSERACT,
      ['stdin', 'stdout', '--psm', '3', '-l', 'eng'],
      { env: { ...process.env, OMP_THREAD_LIMIT: '1' } },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    );
    child.stdin!.end(input);
  });
}

let renderer: TemplateRenderer;
beforeAll(async () => {
  renderer = await createTemplateRenderer(undefined, await sharedEngine());
});
afterAll(() => renderer.close());

describe.skipIf(!existsSync(TESSERACT) && process.env.CI !== 'true')('titles read back by OCR', () => {
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
          text: await read(png, size),
        };
      }),
    );
    for (const { label, text } of results) expect(plain(text), label).toContain(plain(TITLE));
  });
});
