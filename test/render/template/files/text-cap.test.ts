import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTemplateFile } from '../../../../src/render/template/files/load.js';
import { TEXT_MAX_LENGTH, TEXT_TOTAL_MAX } from '../../../../src/render/template/files/validate.js';

// Regression (issue 26 §4): a template text field could declare maxLength 10000, and one
// layout of that much text blocked the event loop for 1.6-1.9 s. The stall itself is measured
// in ../layout-stall.test.ts; this is the refusal at load time.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-cap-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
/** Loads a template with `fields`; the error message from the file name on, or 'loaded'. */
async function load(fields: string): Promise<string> {
  const d = path.join(dir, `case-${++n}`);
  await mkdir(d);
  const file = path.join(d, 'card.tsx');
  await writeFile(
    file,
    `import { defineTemplate } from 'cardshot/template';\nexport default defineTemplate({\n  description: 'x',\n  fields: {\n    ${fields}\n  },\n  render: (f, { size }) => <div style={{ width: size.width, height: size.height }}>{f.a}</div>,\n});\n`,
  );
  try {
    await loadTemplateFile(file, d);
    return 'loaded';
  } catch (err) {
    return (err as Error).message.replace(`${d}/`, '');
  }
}

describe('text field lengths', () => {
  it('are capped at 500 characters a field (10000 was accepted)', async () => {
    expect([TEXT_MAX_LENGTH, TEXT_TOTAL_MAX]).toEqual([500, 1000]);
    expect(await load("a: { type: 'text', maxLength: 500 },")).toBe('loaded');
    for (const len of [501, 10_000]) {
      expect(await load(`a: { type: 'text', maxLength: ${len} },`)).toBe(
        'card.tsx:5:24: field a: a text field needs maxLength, a whole number from 1 to 500',
      );
    }
  });

  it("and at 1000 for all of a template's text fields together", async () => {
    const fields = (lens: number[]) =>
      lens.map((len, i) => `${'abc'[i]}: { type: 'text', maxLength: ${len} },`).join('\n    ');
    expect(await load(fields([500, 500]))).toBe('loaded');
    expect(await load(fields([500, 400, 101]))).toBe(
      "card.tsx:4:3: the text fields' maxLength values add up to 1001; at most 1000 in all (one card's text is laid out in one go)",
    );
  });
});
