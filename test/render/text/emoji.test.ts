import { describe, expect, it } from 'vitest';
import { emojiFile, emojiSvg, splitEmoji } from '../../../src/render/text/emoji.js';

describe('emoji to twemoji files', () => {
  it.each([
    ['🚀', '1f680.svg'],
    ['👩‍💻', '1f469-200d-1f4bb.svg'], // ZWJ sequence
    ['🇯🇵', '1f1ef-1f1f5.svg'], // flag
    ['👍🏽', '1f44d-1f3fd.svg'], // skin tone
    ['1️⃣', '31-20e3.svg'], // keycap: FE0F dropped
    ['#️⃣', '23-20e3.svg'],
    ['❤️', '2764.svg'], // FE0F dropped outside ZWJ sequences
    ['❤️‍🔥', '2764-fe0f-200d-1f525.svg'], // kept inside one
    ['🏳️‍🌈', '1f3f3-fe0f-200d-1f308.svg'],
  ])('%s → %s', (emoji, file) => {
    expect(emojiFile(emoji)).toBe(file);
    expect(emojiSvg(file).subarray(0, 4).toString()).toBe('<svg');
  });

  it('splits text into runs and emoji, leaving text-presentation symbols as text', () => {
    expect(splitEmoji('Hi 👋🏾 © ™ 1 #')).toEqual([
      { kind: 'text', text: 'Hi ' },
      { kind: 'emoji', text: '👋🏾', file: '1f44b-1f3fe.svg' },
      { kind: 'text', text: ' © ™ 1 #' },
    ]);
    expect(splitEmoji('❤︎ plain')).toEqual([{ kind: 'text', text: '❤︎ plain' }]);
  });

  it('draws a text-default character as the emoji when no text font has a glyph for it', () => {
    expect(splitEmoji('Done ✔ ok © ↔ ❤')).toEqual([
      { kind: 'text', text: 'Done ' },
      { kind: 'emoji', text: '✔', file: '2714.svg' },
      { kind: 'text', text: ' ok © ↔ ❤' },
    ]);
    // The last-resort symbol fonts have ✔ ☺ ✈ too, but a user sending them expects the emoji.
    for (const ch of ['✔', '☺', '✌', '✳', '✈', '✏', '☑', '⌨', '⚙'])
      expect(
        splitEmoji(ch).map((p) => p.kind),
        ch,
      ).toEqual(['emoji']);
    // U+FE0E asks for text: the symbol font's glyph when one has it…
    expect(splitEmoji('☺\uFE0E ✔\uFE0E')).toEqual([{ kind: 'text', text: '☺\uFE0E ✔\uFE0E' }]);
    // …and with no glyph anywhere the emoji beats a box, as in browsers.
    expect(splitEmoji('ℹ\uFE0E')).toEqual([{ kind: 'emoji', text: 'ℹ\uFE0E', file: '2139.svg' }]);
  });

  it('leaves dingbats and shapes without an emoji form as text (the symbol fonts draw them)', () => {
    expect(splitEmoji('Next ➜ ✦ ☐ ✘ ☰')).toEqual([{ kind: 'text', text: 'Next ➜ ✦ ☐ ✘ ☰' }]);
  });

  it('falls back to the base emoji for a sequence twemoji does not draw', () => {
    expect(emojiFile('🚀\u{1F3FB}')).toBe('1f680.svg');
  });
});
