import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTemplateRenderer, type TemplateRenderer } from '../../../src/render/template/renderer.js';
import { caseContext, caseFields, goldenCases, goldenName, goldenPath } from '../../golden/cases.js';
import { regenerateGoldens } from '../../golden/regenerate.js';
import { sharedEngine } from '../../helpers/engine.js';
import { pngSize } from '../../helpers/png.js';
import { decode, diffImage, diffPixels } from './pixels.js';

/** More than this share of pixels off by more than 16 in any channel fails a golden. */
const MAX_DIFF_SHARE = 0.005;
const UPDATE = process.env.UPDATE_GOLDEN === '1';

let renderer: TemplateRenderer;
beforeAll(async () => {
  renderer = await createTemplateRenderer(undefined, await sharedEngine());
  if (UPDATE) await regenerateGoldens(renderer);
});
afterAll(() => renderer.close());

describe('golden images', () => {
  for (const c of goldenCases()) {
    const file = goldenName(c);
    it(`${file} matches test/golden/${file}.png`, async () => {
      const path = goldenPath(c.template, c.name, c.size, c.themed);
      expect(
        existsSync(path),
        `${path} is missing; run UPDATE_GOLDEN=1 npx vitest run test/render/template/golden.test.ts`,
      ).toBe(true);
      const ctx = await caseContext(c);
      const { png } = await renderer.render(c.template, await caseFields(c.template, c.name, ctx.size), {
        ctx,
      });
      expect(pngSize(png)).toEqual({ width: ctx.size.width, height: ctx.size.height });
      const golden = readFileSync(path);
      // The same bytes are the same pixels: nothing to decode and compare (most cards, as
      // takumi's encoder is deterministic; decoding was most of this file's time).
      if (png.equals(golden)) return;
      const expected = await decode(golden);
      const actual = await decode(png);
      // The og designs predate sizes and themes: those goldens must match to the pixel.
      const strict = c.size === 'og' && !c.themed;
      const { count, total, mask } = diffPixels(expected, actual, strict ? 0 : 16);
      if (strict ? count > 0 : count / total > MAX_DIFF_SHARE) {
        const dir = join(tmpdir(), 'cardshot-golden');
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, `${file}.actual.png`), png);
        writeFileSync(join(dir, `${file}.diff.png`), await diffImage(expected, mask));
        expect.fail(`${count} of ${total} pixels differ; actual and diff written to ${dir}`);
      }
    });
  }
});
