/**
 * Element hiding: the lists' CSS rules for the page (generic ones, the page's host's, and those
 * keyed by the ids, classes and links found in its DOM) added as a stylesheet, and the elements
 * whose resource was blocked (an ad image or frame) collapsed, so no broken-image box or
 * Chromium "blocked" page is left where the ad was.
 *
 * Only plain CSS reaches the page: the engines are built without extended selectors and
 * scriptlets, and the functions below are our own, run with `frame.evaluate` (which Chromium
 * runs outside the page's Content-Security-Policy).
 */
import type { Request as FilterRequest, FiltersEngine } from '@ghostery/adblocker';
import type { Frame } from 'playwright-core';
import { withTimeout } from '../../../lib/timeout.js';

type MakeRequest = (details: { url: string }) => FilterRequest;

/** What the DOM says about itself, bounded: a hostile page could list millions of classes. */
interface Hints {
  classes: string[];
  ids: string[];
  hrefs: string[];
}

/** A CSS rule as selectors and a declaration block: inserted whole, or selector by selector. */
type Rule = [selectors: string[], body: string];

/** Frames looked at before a capture: the page and its first subframes (ads nest frames deeply). */
const MAX_FRAMES = 20;

/**
 * Runs in the page: the distinct ids, classes and link targets of the document, at most 2,000
 * of each (and each at most 300 characters), which is what the engine matches rules on.
 */
function collectHints(): Hints {
  const LIMIT = 2000;
  const LONGEST = 300;
  const classes = new Set<string>();
  const ids = new Set<string>();
  const hrefs = new Set<string>();
  const keep = (set: Set<string>, value: string | null | undefined) => {
    if (value && value.length <= LONGEST && set.size < LIMIT) set.add(value);
  };
  const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): Iterable<DomElement> } })
    .document;
  for (const el of doc.querySelectorAll('[id],[class],a[href]')) {
    keep(ids, el.id);
    for (const c of el.classList ?? []) keep(classes, c);
    if (el.tagName === 'A') keep(hrefs, el.getAttribute('href'));
    if (ids.size >= LIMIT && classes.size >= LIMIT && hrefs.size >= LIMIT) break;
  }
  return { classes: [...classes], ids: [...ids], hrefs: [...hrefs] };
}

/** The bits of an element `collectHints` and `hideInPage` use (the DOM library is not loaded). */
interface DomElement {
  id: string;
  tagName: string;
  classList?: Iterable<string>;
  getAttribute(name: string): string | null;
  currentSrc?: string;
  src?: string;
  data?: string;
  style: { setProperty(name: string, value: string, priority: string): void };
}

/**
 * Runs in the page: adds the rules as a constructed stylesheet (a group with one selector
 * Chromium cannot parse would otherwise drop the whole group, so a failing group is inserted
 * selector by selector) and collapses the elements whose source was blocked.
 */
function hideInPage([rules, blocked]: [Rule[], string[]]): void {
  const g = globalThis as unknown as {
    CSSStyleSheet: new () => { insertRule(rule: string, index: number): void; cssRules: { length: number } };
    document: { adoptedStyleSheets: unknown[]; querySelectorAll(s: string): Iterable<DomElement> };
  };
  const sheet = new g.CSSStyleSheet();
  const insert = (rule: string) => {
    try {
      sheet.insertRule(rule, sheet.cssRules.length);
      return true;
    } catch {
      return false;
    }
  };
  for (const [selectors, body] of rules) {
    if (!insert(`${selectors.join(',')}{${body}}`)) for (const s of selectors) insert(`${s}{${body}}`);
  }
  g.document.adoptedStyleSheets = [...g.document.adoptedStyleSheets, sheet];
  if (blocked.length === 0) return;
  const gone = new Set(blocked);
  for (const el of g.document.querySelectorAll('img,iframe,frame,embed,object,video,input[type="image"]')) {
    const src = el.currentSrc || el.src || el.data;
    if (src && gone.has(src)) el.style.setProperty('display', 'none', 'important');
  }
}

/** Splits the engine's stylesheet (`a,\nb { display: none !important; }` blocks) into rules. */
export function splitStyles(css: string): Rule[] {
  const rules: Rule[] = [];
  for (const m of css.matchAll(/([^{}]+)\{([^{}]*)\}/g)) {
    const selectors = m[1]!
      .split(',\n')
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
    if (selectors.length > 0) rules.push([selectors, m[2]!.trim()]);
  }
  return rules;
}

/** The hiding rules the engines give for a document at `url` with these DOM hints. */
export function rulesFor(
  url: string,
  hints: Hints,
  engines: readonly FiltersEngine[],
  make: MakeRequest,
): Rule[] {
  const { hostname, domain } = make({ url });
  const rules: Rule[] = [];
  for (const engine of engines) {
    const { active, styles } = engine.getCosmeticsFilters({
      url,
      hostname,
      domain,
      ...hints,
      getBaseRules: true,
      getRulesFromHostname: true,
      getRulesFromDOM: true,
      getInjectionRules: false,
      getExtendedRules: false,
    });
    // Inactive: the list exempts this page from element hiding ($elemhide, @@…$document).
    if (active) rules.push(...splitStyles(styles));
  }
  return rules;
}

/** Hides ads and banners in one frame; false when the frame went away or ran out of time. */
async function hideInFrame(
  frame: Frame,
  engines: readonly FiltersEngine[],
  make: MakeRequest,
  blocked: readonly string[],
  ms: number,
): Promise<boolean> {
  const url = frame.url();
  if (!/^https?:/.test(url)) return false;
  try {
    const started = Date.now();
    const hints = await withTimeout(frame.evaluate(collectHints), ms);
    const rules = rulesFor(url, hints, engines, make);
    const left = ms - (Date.now() - started);
    if (left <= 0) return false;
    await withTimeout(frame.evaluate(hideInPage, [rules, [...blocked]] as [Rule[], string[]]), left);
    return true;
  } catch {
    // Detached, navigated or too slow: that frame is captured as it stands.
    return false;
  }
}

/**
 * Hides ads and banners in `frames` (the page's first; at most 20), all at once and within `ms`.
 * Returns how many frames were done.
 */
export async function hideElements(
  frames: readonly Frame[],
  engines: readonly FiltersEngine[],
  make: MakeRequest,
  blocked: ReadonlySet<string>,
  ms: number,
): Promise<number> {
  if (engines.length === 0 || ms <= 0) return 0;
  const list = [...blocked];
  const done = await Promise.all(
    frames.slice(0, MAX_FRAMES).map((f) => hideInFrame(f, engines, make, list, ms)),
  );
  return done.filter(Boolean).length;
}
