const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * The user-perceived characters of `text` (a letter with its marks, a whole emoji sequence):
 * what password lengths count and where text may be cut or broken.
 */
export function graphemes(text: string): string[] {
  // Printable ASCII is one character per grapheme (no ASCII character extends or joins another;
  // CR LF, the one ASCII pair, is outside the range). Most titles are: the segmenter costs
  // ~0.02 ms per call and a card's text is segmented several times (validation, fitting, cuts).
  if (PRINTABLE_ASCII.test(text)) return text.split('');
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
