// @module-tag process
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fontCoverage, formatCoverage } from '../../src/cli/templates/font-coverage.js';
import { serifWoff2 } from '../helpers/fonts.js';

describe('templates check --font', () => {
  it("lists the sample characters a Latin-only font lacks, per script, and none of Latin's", async () => {
    const file = path.join(os.tmpdir(), `cardshot-check-font-${process.pid}.woff2`);
    writeFileSync(file, serifWoff2());
    const report = await fontCoverage(file);
    expect(report.font).toBe(`Source Serif 4 (${file})`);
    const samples = report.gaps.map((g) => g.sample);
    expect(samples).toEqual(['cjk', 'arabic', 'devanagari', 'thai']);
    const cjk = report.gaps.find((g) => g.sample === 'cjk')!;
    expect(cjk.missing).toContain('我');
    expect(cjk.missing).not.toContain('A');
    expect(formatCoverage(report)[0]).toBe(
      `FONT Source Serif 4 (${file}): lacks characters the samples use (the bundled Noto families draw them instead):`,
    );
  });

  it('names the families of the fonts directory when the one asked for is not there', async () => {
    await expect(fontCoverage('No Such Family', os.tmpdir())).rejects.toThrow(
      '--font No Such Family: no such file, and no such family in the fonts directory',
    );
  });
});
