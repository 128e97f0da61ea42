// @module-tag process
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { operatorFace, operatorFamilies } from '../../../src/render/text/operator-faces.js';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { notoOtf } from '../../helpers/fonts.js';

// CARDSHOT_FONTS_DIR: checked at start, registered for every template, in every ETag.
let t: TestApp | undefined;
afterAll(async () => t?.close());

describe('operator fonts', () => {
  it('registers the directory’s fonts, measures them for the fitter and puts them in the ETag', async () => {
    const plain = await startTestApp();
    const before = plain.modules.renderer.version;
    await plain.close();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cardshot-fonts-dir-'));
    writeFileSync(path.join(dir, 'NotoSans-ascii.otf'), notoOtf());
    t = await startTestApp({ fontsDir: dir });
    expect(t.modules.renderer.version).not.toBe(before);
    expect(t.modules.renderer.version).toMatch(/\/fonts-\d+\+[0-9a-f]{12}\//);
    expect(operatorFamilies()).toEqual(['Noto Sans']);
    const face = operatorFace('noto sans', 400, 'sans-400');
    expect(typeof face).toBe('object');
    expect(typeof face === 'object' && face.width(0x41)).toBeCloseTo(0.639, 3);
    expect(operatorFace('Not Installed', 400, 'sans-400')).toBe('sans-400');
  });

  it('stops the start on a broken font file, naming the file and the reason', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cardshot-fonts-dir-'));
    writeFileSync(
      path.join(dir, 'broken.ttf'),
      Buffer.concat([Buffer.from('PK\u0003\u0004', 'latin1'), Buffer.alloc(64)]),
    );
    await expect(startTestApp({ fontsDir: dir })).rejects.toThrow(
      `font file ${path.join(dir, 'broken.ttf')}: not a font file (it is a ZIP archive)`,
    );
  });
});
