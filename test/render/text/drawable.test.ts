import { describe, expect, it } from 'vitest';
import { parseTemplateRequest } from '../../../src/render/template/request.js';
import { describeCluster, undrawableClusters } from '../../../src/render/text/drawable.js';
import { BUILTINS } from '../../helpers/builtins.js';

const parse = (fields: Record<string, string>) =>
  parseTemplateRequest({ template: 'blog', ...fields }, 'body', undefined, BUILTINS);

describe('text that would be drawn as boxes', () => {
  it('lists undrawable clusters once each, skipping emoji images and spaces', () => {
    expect(undrawableClusters('Hi ✔ 🚀 ༀ ༀ Ꭰ\u3000x\u0331')).toEqual(['ༀ', 'Ꭰ', 'x\u0331']);
    expect(undrawableClusters('Plain title, 漢字, عربي, বাংলা and ❤')).toEqual([]);
    // Dingbats, arrows and shapes no text font has come from the symbol fonts (were refused).
    expect(undrawableClusters('Get started ➜ ✦ New ☐ todo ☒ done ✘ ☰ ⚑')).toEqual([]);
    expect(describeCluster('x\u0331')).toBe('"x̱" U+0078 U+0331');
    expect(describeCluster('𠀀')).toBe('"𠀀" U+20000');
  });

  it('is refused with a 400 naming the field and the characters', () => {
    expect(() => parse({ title: 'བོད་ཡིག Tibetan' })).toThrow(
      'title contains characters no font here can draw (they would be boxes): "བོ" U+0F56 U+0F7C, "ད" U+0F51, "་" U+0F0B, "ཡི" U+0F61 U+0F72, "ག" U+0F42',
    );
    expect(() => parse({ title: 'ok', subtitle: 'ᏣᎳᎩ' })).toThrow(
      'subtitle contains characters no font here can draw (they would be boxes): "Ꮳ" U+13E3, "Ꮃ" U+13B3, "Ꭹ" U+13A9',
    );
    expect(() => parse({ title: 'ok', brand: 'ᏣᎳᎩ ᎦᏬᏂᎯᏍᏗ' })).toThrow(
      /^brand contains characters no font here can draw \(they would be boxes\): "Ꮳ" U\+13E3, .* and 4 more$/,
    );
    const caught = (() => {
      try {
        parse({ title: 'ༀ' });
      } catch (err) {
        return err;
      }
    })();
    expect(caught).toMatchObject({ code: 'bad_request' });
  });

  it('accepts emoji for characters without a text glyph, and malformed text keeps its own message', () => {
    expect(parse({ title: 'Done ✔ ☺' }).fields.title).toBe('Done ✔ ☺');
    expect(() => parse({ title: 'Caf\ufffd' })).toThrow('title contains invalid text');
  });
});
