/**
 * The `css` option: the caller's stylesheet, adopted as a constructed stylesheet (new
 * CSSStyleSheet + replaceSync) from an isolated world of ours. CSSOM is not subject to a page's
 * Content-Security-Policy, so it applies under `style-src 'self'` too, where an inserted <style>
 * is refused. It is data, never script: replaceSync parses CSS only (and drops @import).
 * Whatever it loads (url()) is an ordinary sub-resource of the page, through the egress proxy and
 * its URL guard like every other.
 *
 * Why at document creation, set before navigation: adopting it in the ready page took three CDP
 * round trips after the load (the frame tree, a new isolated world, the call), 30–130 ms of a
 * capture on the shared 2-core machine; registered with the other emulation before the page
 * loads, it costs nothing after the load, the page is laid out once with it (no restyle before
 * the capture), and a document the page moves to later gets it too.
 */
import type { Lease } from '../browser/lease.js';

/** The isolated world the stylesheet is adopted from (the page's scripts cannot see it). */
const CSS_WORLD = 'cardshot-css';

/**
 * The script run in each new document's isolated world. The stylesheet reaches it as a JSON
 * string literal: JSON is a subset of JavaScript's grammar (ES2019), so the caller's text is one
 * string value whatever it holds and can never end the literal. Only the top-level document gets
 * it (frames are not the page's own styling). It is adopted as the document is created, and again
 * at DOMContentLoaded and load if the page replaced the list meanwhile (as a framework that
 * assigns `document.adoptedStyleSheets` does), so it is there when the page is ready, as when it
 * was adopted then.
 */
export function adoptOnNewDocument(css: string): string {
  return `(() => {
  if (window.top !== window) return;
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(${JSON.stringify(css)});
  const adopt = () => {
    const list = document.adoptedStyleSheets;
    if (!list.includes(sheet)) document.adoptedStyleSheets = [...list, sheet];
  };
  adopt();
  addEventListener('DOMContentLoaded', adopt);
  addEventListener('load', adopt);
})();`;
}

/**
 * Adds `css` to every top-level document the page loads from now on, after its own stylesheets
 * (adopted sheets come last in the cascade, so it wins ties). Called before navigation.
 */
export async function applyCss(lease: Lease, css: string): Promise<void> {
  // Chromium runs a session's new-document scripts only while its Page domain is enabled
  // (measured: without it the stylesheet never arrived). Sent together, one round trip.
  await Promise.all([
    lease.cdp.send('Page.enable'),
    lease.cdp.send('Page.addScriptToEvaluateOnNewDocument', {
      source: adoptOnNewDocument(css),
      worldName: CSS_WORLD,
    }),
  ]);
}
