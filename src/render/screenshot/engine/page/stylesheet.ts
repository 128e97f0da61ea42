/**
 * The `css` option: the caller's stylesheet applied to the ready page. It is adopted as a
 * constructed stylesheet (new CSSStyleSheet + replaceSync) from our isolated world: CSSOM is not
 * subject to a page's Content-Security-Policy, so it applies under `style-src 'self'` too, where
 * an inserted <style> is refused. It is data, never script: replaceSync parses CSS only (and
 * drops @import). Whatever it loads (url()) is an ordinary sub-resource of the page, through the
 * egress proxy and its URL guard like every other.
 */
import type { Lease } from '../browser/lease.js';
import { call } from './in-page.js';

const ADOPT = `function (css) {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  return document.adoptedStyleSheets.length;
}`;

/** Adds `css` to the page's document, after its own stylesheets (so it wins ties). */
export async function applyCss(lease: Lease, world: number, css: string): Promise<void> {
  await call<number>(lease, world, ADOPT, [css]);
}
