import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cmapTable, mappedRanges } from '../../../src/render/text/cmap.js';
import { clusterDrawn, fontsDraw, textFontsDraw } from '../../../src/render/text/coverage.js';
import { listFontFiles } from '../../../src/render/text/fonts.js';

const cp = (ch: string) => ch.codePointAt(0)!;

describe('glyph coverage from the registered fonts’ character maps', () => {
  it('reads one weight per subset because every weight of a subset maps the same code points', () => {
    const bySubset = new Map<string, string>();
    for (const file of listFontFiles()) {
      const ranges = JSON.stringify(mappedRanges(cmapTable(readFileSync(file.path))));
      const key = `${file.family}|${file.subset}`;
      const seen = bySubset.get(key);
      if (seen === undefined) bySubset.set(key, ranges);
      else expect(ranges, `${file.path} maps other code points than its other weights`).toBe(seen);
    }
  });

  it('knows what the fonts draw, including symbols only a CJK face has (❤ ★ ☀)', () => {
    for (const ch of 'Aé€…ж漢あ한عש' + 'क' + 'ก' + 'বதఅಅമગਗසລမកաქአ' + '❤★☀©®™↔')
      expect(fontsDraw(cp(ch)), ch).toBe(true);
    for (const ch of ['ༀ', 'Ꭰ', '𝐀', '𠀀', '\u0378', 'ℹ']) expect(fontsDraw(cp(ch)), ch).toBe(false);
  });

  it('tells the last-resort symbol fonts apart: they draw ✘ ☐ ➜ ✦ ☰ and ✔ ☺ ✈, no text font does', () => {
    for (const ch of '✘☐☒➜✦☰⚑❧✔☺✈') {
      expect(fontsDraw(cp(ch)), ch).toBe(true);
      expect(textFontsDraw(cp(ch)), ch).toBe(false);
    }
    for (const ch of 'A€★❤☀') expect(textFontsDraw(cp(ch)), ch).toBe(true);
  });

  it('needs one face to hold a whole cluster, as takumi shapes a cluster from one face', () => {
    expect(clusterDrawn('g\u0303')).toBe(true); // the complete Inter has both
    expect(clusterDrawn('क्षि')).toBe(true);
    // U+0331 exists (in Noto Sans Thai), but no face has it and an x: drawn, the mark is a box.
    expect(fontsDraw(0x331)).toBe(true);
    expect(clusterDrawn('x\u0331')).toBe(false);
    expect(clusterDrawn('a\u200d')).toBe(true); // joiners take no glyph
  });
});
