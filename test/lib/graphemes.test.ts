import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { graphemes } from '../../src/lib/graphemes.js';

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const segmented = (text: string) => Array.from(segmenter.segment(text), (s) => s.segment);

describe('graphemes', () => {
  it('splits printable ASCII exactly as the segmenter does', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) }),
        (t) => {
          expect(graphemes(t)).toEqual(segmented(t));
        },
      ),
    );
  });

  it('keeps CR LF, marks and emoji sequences whole outside ASCII', () => {
    for (const t of ['a\r\nb', 'é', 'e\u0301te', '👩‍👩‍👧 family', 'नमस्ते', 'Ok 🇫🇷!']) {
      expect(graphemes(t)).toEqual(segmented(t));
    }
    expect(graphemes('e\u0301')).toHaveLength(1);
  });
});
