import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  GENERATED_PATH,
  measureScriptWidths,
  measureTables,
  SCRIPT_WIDTHS_PATH,
} from '../../../src/render/text/measure.js';
import { SCRIPT_WIDTHS } from '../../../src/render/text/script-widths.generated.js';
import { scriptWidthsModule } from '../../../src/render/text/script-widths.js';
import * as generated from '../../../src/render/text/widths.generated.js';
import { tablesOf, widthsModule } from '../../../src/render/text/widths-format.js';
import { sharedEngine } from '../../helpers/engine.js';

describe('width tables', () => {
  it('are what takumi measures from the registered fonts (run `npm run fonts:measure`)', async () => {
    const measured = await measureTables(await sharedEngine());
    expect(tablesOf(generated)).toEqual(measured);
    expect(readFileSync(GENERATED_PATH, 'utf8')).toBe(widthsModule(measured));
  }, 60_000);

  // Thousands of takumi layouts (~5 s): `npm test` only.
  it('per-script averages are what the headlines fit to (run `npm run fonts:measure`)', {
    tags: ['slow'],
    timeout: 60_000,
  }, async () => {
    const fitted = await measureScriptWidths(await sharedEngine());
    expect(SCRIPT_WIDTHS).toEqual(fitted.widths);
    expect(readFileSync(SCRIPT_WIDTHS_PATH, 'utf8')).toBe(scriptWidthsModule(fitted));
  });
});
