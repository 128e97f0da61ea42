const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * The user-perceived characters of `text` (a letter with its marks, a whole emoji sequence):
 * what password lengths count and where text may be cut or broken.
 */
export function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (s) => s.segment);
}
