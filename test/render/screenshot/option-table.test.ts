import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FREE_OPTIONS, OPTION_NAMES } from '../../../src/render/screenshot/option-names.js';
import { cliFlag, SHOT_OPTIONS } from '../../../src/render/screenshot/option-table.js';

const root = path.resolve(import.meta.dirname, '../../..');

// The table is the one declaration of the screenshot options; what is not derived from it (the
// prose of docs/api.md) is checked against it here, so a new option cannot go undocumented.
describe('the screenshot option table', () => {
  it('docs/api.md has one row per option, in table order', async () => {
    const api = await readFile(path.join(root, 'docs/api.md'), 'utf8');
    const table = api.slice(api.indexOf('| Option | Values | What it does |'));
    const rows = [...table.slice(0, table.indexOf('\n\n')).matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]);
    expect(rows).toEqual([...OPTION_NAMES]);
  });

  it('gives every option its own CLI flag, and keeps fullPage, blocking and fresh off a default plan', () => {
    const flags = SHOT_OPTIONS.map(cliFlag);
    expect(new Set(flags).size).toBe(flags.length);
    expect(flags).toContain('hide');
    expect(OPTION_NAMES.filter((n) => !FREE_OPTIONS.includes(n))).toEqual([
      'fullPage',
      'blockAds',
      'blockCookieBanners',
      'fresh',
    ]);
  });
});
