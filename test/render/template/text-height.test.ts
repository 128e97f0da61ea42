import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtinTemplatesDir } from '../../../src/render/template/files/area.js';
import { ImageBag, withBag } from '../../../src/render/template/sdk/bag.js';
import { Text, type TextProps, textHeight } from '../../../src/render/template/sdk/components.js';
import { FAMILY } from '../../../src/render/text/fonts.js';
import { paragraph } from '../../../src/render/text/text.js';

const props: Omit<TextProps, 'children'> = {
  box: {
    face: 'sans-400',
    steps: [
      [30, 2],
      [26, 3],
    ],
    width: 400,
    height: 120,
    lineHeight: 1.4,
  },
  color: '#111111',
  balance: true,
};
const LONG = 'A subtitle long enough to need a second line at this width, and perhaps a third 🚀';

describe('textHeight: the height <Text> draws, for layouts that share room', () => {
  it('is the fitted paragraph height <Text> draws with the same props (sans 400 by default)', () => {
    const { result } = withBag(() => ({
      height: textHeight(LONG, props),
      short: textHeight('Short', props),
      direct: paragraph(LONG, { ...props, family: FAMILY.sans, weight: 400 }, new ImageBag()).height,
    }));
    expect(result.height).toBe(result.direct);
    expect(result.short).toBeLessThan(result.height);
  });

  it('fits once per card: the <Text> after it reuses the fit, and its emoji image is registered once', () => {
    const { result, bag } = withBag(() => {
      textHeight(LONG, props);
      return [Text({ ...props, children: LONG }), Text({ ...props, children: LONG })];
    });
    expect(result[0]).toBe(result[1]);
    expect(bag.list().map((i) => i.src)).toEqual(['twemoji/1f680.svg']);
    // A fresh card fits anew (nothing leaks between builds).
    const again = withBag(() => Text({ ...props, children: LONG })).result;
    expect(again).not.toBe(result[0]);
    expect(again).toEqual(result[0]);
  });
});

describe('the built-in templates', () => {
  it('draw every paragraph with <Text>, as docs/templates.md teaches (no paragraph() calls)', () => {
    const files = readdirSync(builtinTemplatesDir()).filter((f) => /\.(tsx?|jsx?)$/.test(f));
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) {
      expect(readFileSync(path.join(builtinTemplatesDir(), f), 'utf8'), f).not.toMatch(/\bparagraph\(/);
    }
  });
});
