/**
 * CSS selectors from a request (`selector`, `waitForSelector`, `hideSelectors`), checked before
 * any browser sees them. They are only ever handed to the page as data (an argument of our own
 * function in an isolated world, or one rule given to `CSSStyleSheet.insertRule`), never joined
 * into script. The checks here refuse the malformed and the dangerous early (400 before the plan,
 * the rate limit or a queue slot); the browser's own parser is the last word (a selector it
 * refuses is a 400 too, see in-page.ts).
 */
import { parse } from 'css-what';

/** Longest selector accepted (each of `hideSelectors`, too). */
export const SELECTOR_MAX_LENGTH = 500;
/** Most selectors `hideSelectors` may list. */
export const HIDE_SELECTORS_MAX = 20;

/**
 * Characters no selector needs outside a quoted string or an escape. `{`, `}` and `;` would end
 * the one rule a hidden selector becomes; `<`, `!`, `@` and backticks are no part of selector
 * syntax; control characters other than white space never are.
 */
const FORBIDDEN = /[{};<!@`]/;
/** White space a selector may hold: tab, line feed, form feed, carriage return. */
const SPACES = new Set([9, 10, 12, 13]);
const forbidden = (c: string) => {
  const code = c.charCodeAt(0);
  return FORBIDDEN.test(c) || code === 0x7f || (code < 0x20 && !SPACES.has(code));
};

/** css-what token types that combine two compound selectors. */
const COMBINATORS = new Set(['child', 'parent', 'sibling', 'adjacent', 'descendant', 'column-combinator']);

/**
 * Splits a comma-separated list of selectors at its top-level commas (not those inside quotes,
 * brackets, parentheses or after a backslash), trimmed. Throws with a short reason when the text
 * has a character no selector may hold, or an unclosed string, bracket or parenthesis.
 */
export function splitSelectorList(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (quote) {
      if (c === quote) quote = undefined;
      continue;
    }
    if (forbidden(c)) throw new Error(`it contains ${JSON.stringify(c)}`);
    if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (quote) throw new Error('a quoted string is not closed');
  parts.push(text.slice(start).trim());
  return parts;
}

/**
 * Why `selector` (one selector or a comma-separated list, as `querySelector` takes) is not one
 * we accept, or undefined when it is.
 */
export function selectorProblem(selector: string): string | undefined {
  if (selector.trim() === '') return 'it is empty';
  try {
    if (splitSelectorList(selector).some((p) => p === '')) return 'it has an empty part between commas';
    for (const compound of parse(selector)) {
      const first = compound[0];
      const last = compound[compound.length - 1];
      if (!first || !last) return 'it has an empty part';
      if (COMBINATORS.has(first.type) || COMBINATORS.has(last.type)) {
        return 'it starts or ends with a combinator (>, +, ~)';
      }
      if (compound.some((t) => t.type === 'parent' || t.type === 'column-combinator')) {
        return 'it uses a combinator browsers do not support';
      }
    }
  } catch (err) {
    return (err as Error).message.replace(/\.$/, '');
  }
  return undefined;
}

/** The selector as quoted in messages: at most 100 characters of it. */
export function quoteSelector(selector: string): string {
  return JSON.stringify(selector.length > 100 ? `${selector.slice(0, 100)}…` : selector);
}
