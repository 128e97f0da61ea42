/**
 * No-break spaces that keep short tokens with their neighbour, so a line never ends with
 * "50% / off", "Series / B", "React / 19" or a Russian preposition "В" alone. takumi and the
 * fitter both treat U+00A0 as part of the word (same width as a space, no break), so the plan
 * stays in step with the layout. Only Latin, Cyrillic and Greek: CJK and Thai break elsewhere,
 * and Arabic or Hebrew short words have their own conventions.
 */

const NBSP = '\u00a0';
/** Letters of the scripts glued here. */
const ALPHABETIC = /^[\p{Script=Latin}\p{Script=Cyrillic}\p{Script=Greek}]+$/u;
/** Punctuation that may close a token without changing what it is ("B,", "19.", "(50%)"). */
const EDGES = /^[("'“‘«]+|[)"'”’»,.:;!?]+$/gu;
/** A number, with a currency before or a percent, multiplier or magnitude after: $5M, 50%, 2x. */
const NUMBER = /^[$€£¥₽]?\d[\d.,]*(?:%|[xk]|[KMB])?$/u;
/** A single Latin capital naming a version or a series ("Plan B"); "A" and "I" are words. */
const SERIES_LETTER = /^[B-HJ-Z]$/u;

const core = (token: string) => token.replace(EDGES, '');
const isWord = (token: string, most = Infinity) => {
  const c = core(token);
  return ALPHABETIC.test(c) && [...c].length <= most;
};
const isNumber = (token: string) => NUMBER.test(core(token));

/** Whether the space between `before` and `after` should not break. */
function glued(before: string, after: string): boolean {
  const wordAfter = isWord(after) || isNumber(after);
  // "В / Москве", "a / guide", "of / the": a one- or two-letter word leads into the next.
  if (isWord(before, 2) && !SERIES_LETTER.test(core(before)) && wordAfter && !/[,.:;!?]$/u.test(before))
    return true;
  // "50% / off", "10 / ms": a number keeps a short unit or word after it.
  if (isNumber(before) && isWord(after, 3) && !/[,.:;!?]$/u.test(before)) return true;
  // "React / 19", "Series / B": a version number or letter stays with its name.
  return isWord(before) && (isNumber(after) || SERIES_LETTER.test(core(after)));
}

/**
 * The longest run, in characters, that glue may build: a chain of short words ("to be or not to
 * be") would otherwise become one long word, set smaller or broken between letters.
 */
const MOST_GLUED = 24;

/** `text` with the spaces around short tokens made no-break (see the module comment). */
export function glueShortWords(text: string): string {
  const tokens = text.split(' ');
  let out = tokens[0] ?? '';
  let run = out.length;
  for (let i = 1; i < tokens.length; i++) {
    const before = tokens[i - 1]!;
    const after = tokens[i]!;
    const glue =
      before !== '' && after !== '' && run + 1 + after.length <= MOST_GLUED && glued(before, after);
    out += (glue ? NBSP : ' ') + after;
    run = glue ? run + 1 + after.length : after.length;
  }
  return out;
}
