import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED_PATH, measureTables } from '../../../src/render/text/measure.js';
import * as generated from '../../../src/render/text/widths.generated.js';
import { tablesOf, widthsModule } from '../../../src/render/text/widths-format.js';

describe('width tables', () => {
  it('are what takumi measures from the registered fonts (run `npm run fonts:measure`)', async () => {
    const measured = await measureTables();
    expect(tablesOf(generated)).toEqual(measured);
    expect(readFileSync(GENERATED_PATH, 'utf8')).toBe(widthsModule(measured));
  }, 60_000);
});
