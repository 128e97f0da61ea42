import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTemplateRenderer, type TemplateRenderer } from '../../../src/render/template/renderer.js';
import { caseFields, goldenCases, goldenPath } from '../../golden/cases.js';
import { regenerateGoldens } from '../../golden/regenerate.js';
import { sharedEngine } from '../../helpers/engine.js';
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
  for (const { template, name } of goldenCases()) {
    it(`${template}-${name} matches test/golden/${template}-${name}.png`, async () => {
      const path = goldenPath(template, name);
      expect(
        existsSync(path),
        `${path} is missing; run UPDATE_GOLDEN=1 npx vitest run test/render/template/golden.test.ts`,
      ).toBe(true);
      const { png } = await renderer.render(template, await caseFields(template, name));
      const expected = await decode(readFileSync(path));
      const actual = await decode(png);
      const { count, total, mask } = diffPixels(expected, actual);
      if (count / total > MAX_DIFF_SHARE) {
        const dir = join(tmpdir(), 'cardshot-golden');
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, `${template}-${name}.actual.png`), png);
        writeFileSync(join(dir, `${template}-${name}.diff.png`), await diffImage(expected, mask));
        expect.fail(`${count} of ${total} pixels differ; actual and diff written to ${dir}`);
      }
    });
  }
});
