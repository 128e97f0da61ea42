/**
 * CSS selectors from a request (`selector`, `waitForSelector`, `hideSelectors`), checked before
 * any browser sees them. They are only ever handed to the page as data (an argument of our own
 * function in an isolated world, or one rule given to `CSSStyleSheet.insertRule`), never joined
 * into script. The checks here refuse the malformed and the dangerous early (400 before the plan,
 * the rate limit or a queue slot); the browser's own parser is the last word (a selector it
 * refuses is a 400 too, see in-page.ts).
 */
import { type PseudoSelector, parse, type Selector } from 'css-what';
import {
  FUNCTIONAL_PSEUDO_CLASSES,
  FUNCTIONAL_PSEUDO_ELEMENTS,
  NTH,
  PSEUDO_CLASSES,
  PSEUDO_ELEMENTS,
} from './selector-names.js';

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
  const state = { open: false };
  let depth = 0;
  let start = 0;
  for (const [c, i] of unquoted(text, state)) {
    if (forbidden(c)) throw new Error(`it contains ${JSON.stringify(c)}`);
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth = Math.max(0, depth - 1);
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (state.open) throw new Error('a quoted string is not closed');
  parts.push(text.slice(start).trim());
  return parts;
}

/**
 * The characters of `text` outside quoted strings, with their index, in order: an escaped
 * character (and its backslash) and the quotes themselves are left out. `state.open` says,
 * once done, whether a string was left unclosed.
 */
function* unquoted(text: string, state = { open: false }): Generator<[string, number]> {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else yield [c, i];
  }
  state.open = quote !== undefined;
}

/**
 * Why `selector` (one selector or a comma-separated list, as `querySelector` takes) is not one
 * we accept, or undefined when it is. Beyond css-what's grammar it applies the rules Chromium's
 * parser adds (names it knows, An+B, namespaces, identifiers), so a selector the browser would
 * refuse is refused here, before the page is fetched.
 */
export function selectorProblem(selector: string): string | undefined {
  if (selector.trim() === '') return 'it is empty';
  try {
    if (splitSelectorList(selector).some((p) => p === '')) return 'it has an empty part between commas';
    return rawProblem(selector) ?? listProblem(parse(selector), TOP);
  } catch (err) {
    return (err as Error).message.replace(/\.$/, '');
  }
}

/** Characters that belong only inside an attribute selector (`[href^="x"]`) or a string. */
const ATTRIBUTE_ONLY = /[=^$/?%]/;
/** What may follow `.` or `#`: an identifier's start (a letter, _, non-ASCII, an escape, or - and one of those). */
const IDENT_START = /^(?:[A-Za-z_\u0080-\uffff\\]|-[A-Za-z_\u0080-\uffff\\-])/;

/**
 * What css-what lets through in the text itself: `text=foo` and `xpath=//a` (Playwright's
 * engines) parse as odd tag names, and `#1a` or `.a..b` as names no browser reads.
 */
function rawProblem(text: string): string | undefined {
  let brackets = 0;
  for (const [c, i] of unquoted(text)) {
    if (c === '[') brackets++;
    else if (c === ']') brackets = Math.max(0, brackets - 1);
    else if (brackets === 0) {
      const problem = outsideBrackets(c, text.slice(i + 1, i + 3));
      if (problem) return problem;
    }
  }
  return undefined;
}

/** A character outside brackets and strings (`next`: the two after it). */
function outsideBrackets(c: string, next: string): string | undefined {
  if (c === '>' && next.trimStart().startsWith('>')) return "it chains with >> (Playwright's, not CSS)";
  if (ATTRIBUTE_ONLY.test(c)) return `${JSON.stringify(c)} belongs only inside [attribute] brackets`;
  if ((c === '.' || c === '#') && !IDENT_START.test(next)) {
    return `${c === '.' ? 'a class' : 'an id'} must start with a letter, _ or - (write it escaped otherwise)`;
  }
  return undefined;
}

/** Where a selector list sits: inside :has(…) (which nests no :has), or where no pseudo-element may be. */
interface Nesting {
  inHas: boolean;
  noPseudoElement: boolean;
}

const TOP: Nesting = { inHas: false, noPseudoElement: false };

/** The first problem of a parsed selector list. */
function listProblem(list: Selector[][], nesting: Nesting): string | undefined {
  const { inHas } = nesting;
  for (const compound of list) {
    const first = compound[0];
    const last = compound[compound.length - 1];
    if (!first || !last) return 'it has an empty part';
    if (COMBINATORS.has(first.type) || COMBINATORS.has(last.type)) {
      // `:has(> p)` starts with one by design.
      if (!(inHas && first === compound[0] && first.type !== 'parent' && !COMBINATORS.has(last.type))) {
        return 'it starts or ends with a combinator (>, +, ~)';
      }
    }
    let afterPseudoElement = false;
    for (const token of compound) {
      if (afterPseudoElement) return 'nothing may follow a pseudo-element (::before, ::part(…))';
      const problem = tokenProblem(token, nesting);
      if (problem) return problem;
      afterPseudoElement = token.type === 'pseudo-element';
    }
  }
  return undefined;
}

/** Pseudo-classes whose argument is words, not a string: Chromium refuses `:lang("en")`. */
const WORD_ARGUMENT = new Set(['lang', 'dir', 'state', 'active-view-transition-type']);
const WORDS = /^\s*[\w*-]+(?:\s*,\s*[\w*-]+)*\s*$/;

/** An+B: `odd`, `even`, `3`, `2n+1`, `-n + 3`. */
const AN_B = /^\s*(?:odd|even|[+-]?\d+|[+-]?\d*n(?:\s*[+-]\s*\d+)?)\s*$/i;

function tokenProblem(token: Selector, nesting: Nesting): string | undefined {
  switch (token.type) {
    case 'parent':
    case 'column-combinator':
      return 'it uses a combinator browsers do not support';
    case 'tag':
      if (/^-?\d/.test(token.name)) return `${JSON.stringify(token.name)} is not an element name`;
      return namespaceProblem(token.namespace);
    case 'universal':
      return namespaceProblem(token.namespace);
    case 'attribute':
      // css-what reads the `s` flag; Chromium knows only `i`.
      if (token.ignoreCase === false) return 'an attribute selector takes only the i flag';
      return namespaceProblem(token.namespace);
    case 'pseudo-element':
      if (nesting.noPseudoElement) return ':has(…) and :not(…) cannot hold a pseudo-element';
      if (token.name.startsWith('-webkit-') && token.data === null) return undefined;
      if (!(token.data === null ? PSEUDO_ELEMENTS : FUNCTIONAL_PSEUDO_ELEMENTS).has(token.name)) {
        return unknownPseudo(`::${token.name}`, token.data !== null);
      }
      return token.data === '' ? `::${token.name}() needs an argument` : undefined;
    case 'pseudo':
      return pseudoProblem(token, nesting);
    default:
      return undefined;
  }
}

function pseudoProblem(token: PseudoSelector, nesting: Nesting): string | undefined {
  const { name, data } = token;
  if (!(data === null ? PSEUDO_CLASSES : FUNCTIONAL_PSEUDO_CLASSES).has(name)) {
    return unknownPseudo(`:${name}`, data !== null);
  }
  if (data === null) return undefined;
  if (typeof data !== 'string') {
    if (name === 'has' && nesting.inHas) return ':has(…) cannot hold another :has(…)';
    // Inside :not(…) a pseudo-element is refused; :is and :where forgive it (they drop it).
    return listProblem(data, {
      inHas: nesting.inHas || name === 'has',
      noPseudoElement: nesting.noPseudoElement || name === 'has' || name === 'not',
    });
  }
  if (data.trim() === '') return `:${name}() needs an argument`;
  if (WORD_ARGUMENT.has(name) && !WORDS.test(data))
    return `:${name}(…) takes unquoted words, such as :${name}(en)`;
  if (NTH.has(name)) {
    const of = /^(.*?)\s+of\s+(.+)$/is.exec(data);
    if (of && (name === 'nth-child' || name === 'nth-last-child')) {
      if (!AN_B.test(of[1]!)) return `:${name}(${data}) is not An+B (odd, even, 3, 2n+1)`;
      return selectorProblem(of[2]!);
    }
    if (!AN_B.test(data)) return `:${name}(${data}) is not An+B (odd, even, 3, 2n+1)`;
  }
  return undefined;
}

function namespaceProblem(namespace: string | null): string | undefined {
  // Only "any" (*|) and "none" (|) mean something: querySelector declares no prefixes.
  if (namespace === null || namespace === '' || namespace === '*') return undefined;
  return `the namespace prefix ${JSON.stringify(namespace)} is not declared`;
}

function unknownPseudo(name: string, withArgument: boolean): string {
  return `${name}${withArgument ? '(…)' : ''} is not a CSS pseudo-class or pseudo-element browsers know`;
}

/** The selector as quoted in messages: at most 100 characters of it. */
export function quoteSelector(selector: string): string {
  return JSON.stringify(selector.length > 100 ? `${selector.slice(0, 100)}…` : selector);
}
