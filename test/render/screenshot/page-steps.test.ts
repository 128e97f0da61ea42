import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { printParams } from '../../../src/render/screenshot/engine/page/pdf.js';
import { dropLastPage } from '../../../src/render/screenshot/engine/page/pdf-trim.js';
import { adoptOnNewDocument } from '../../../src/render/screenshot/engine/page/stylesheet.js';

/**
 * The parts of the page steps that are pure: the stylesheet's new-document script (its text
 * reaches the page as data whatever it holds) and the PDF's print parameters (what
 * Page.printToPDF is sent for the options). The real page runs them in
 * test/http/render-url-reader.test.ts and render-url-pdf.test.ts.
 */

/** Runs the script as a top-level document would, with just enough of the DOM to see what it adopts. */
function adopted(source: string, top = true) {
  const sheets: Array<{ text: string }> = [];
  const listeners: Record<string, () => void> = {};
  class CSSStyleSheet {
    text = '';
    replaceSync(text: string) {
      this.text = text;
    }
  }
  const document = {
    get adoptedStyleSheets() {
      return [...sheets];
    },
    set adoptedStyleSheets(list: Array<{ text: string }>) {
      sheets.splice(0, sheets.length, ...list);
    },
  };
  const window: Record<string, unknown> = {};
  window.top = top ? window : {};
  const ran: Record<string, unknown> = {};
  runInNewContext(source, {
    window,
    document,
    CSSStyleSheet,
    addEventListener: (name: string, fn: () => void) => {
      listeners[name] = fn;
    },
    ran,
  });
  return { sheets, listeners, ran };
}

describe('the css option’s new-document script', () => {
  it.each([
    ['plain', 'body { color: red }'],
    ['quotes and backslashes', `a::after { content: "\\"'\\\\" }`],
    ['an attempt to end the literal', '"; ran.escaped = true; "'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal is what the css tries to smuggle in
    ['a template and a comment', '`${ran.escaped = true}` */ ran.escaped = true; /*'],
    [
      'line and paragraph separators',
      'a { b: c }\u2028\u2029\n\r</script><script>ran.escaped = true</script>',
    ],
  ])('adopts %s as the exact text, running none of it', (_name, css) => {
    const { sheets, ran } = adopted(adoptOnNewDocument(css));
    expect(sheets.map((s) => s.text)).toEqual([css]);
    expect(ran.escaped).toBeUndefined();
  });

  it('adopts it again at load when the page replaced the list, and never twice', () => {
    const { sheets, listeners } = adopted(adoptOnNewDocument('p {}'));
    sheets.splice(0, sheets.length, { text: 'the page’s own' });
    listeners.load?.();
    listeners.DOMContentLoaded?.();
    expect(sheets.map((s) => s.text)).toEqual(['the page’s own', 'p {}']);
  });

  it('leaves frames alone: only the top-level document gets it', () => {
    expect(adopted(adoptOnNewDocument('p {}'), false).sheets).toEqual([]);
  });
});

describe('PDF print parameters', () => {
  it('A4 portrait with backgrounds and no margin by default', () => {
    expect(printParams({}, '1-101')).toEqual({
      paperWidth: 8.27,
      paperHeight: 11.7,
      landscape: false,
      printBackground: true,
      scale: 1,
      pageRanges: '1-101',
      marginTop: 0,
      marginRight: 0,
      marginBottom: 0,
      marginLeft: 0,
    });
  });

  it.each([
    ['letter', 8.5, 11],
    ['legal', 8.5, 14],
    ['a3', 11.7, 16.54],
    ['a5', 5.83, 8.27],
    ['tabloid', 11, 17],
  ] as const)('%s is %f × %f in', (paper, w, h) => {
    const p = printParams({ paper }, '1');
    expect([p.paperWidth, p.paperHeight]).toEqual([w, h]);
  });

  it('margins in px, in, cm and mm become inches; the other options pass through', () => {
    const p = printParams(
      { margin: '96px 1in 2.54cm 25.4mm', landscape: true, printBackground: false, scale: 0.5 },
      '2-3',
    );
    expect(p.marginTop).toBeCloseTo(1, 10);
    expect(p.marginRight).toBeCloseTo(1, 10);
    expect(p.marginBottom).toBeCloseTo(1, 10);
    expect(p.marginLeft).toBeCloseTo(1, 10);
    expect([p.landscape, p.printBackground, p.scale, p.pageRanges]).toEqual([true, false, 0.5, '2-3']);
    expect(printParams({ margin: '0' }, '1').marginTop).toBe(0);
    expect(printParams({ margin: '10mm' }, '1').marginLeft).toBeCloseTo(10 / 25.4, 10);
  });
});

describe('dropping a PDF’s last page', () => {
  it('declines a PDF not laid out as Chromium writes it, so the caller prints again', () => {
    expect(
      dropLastPage(Buffer.from('%PDF-1.7\n1 0 obj\n<</Type /Catalog>>\nendobj\n%%EOF\n')),
    ).toBeUndefined();
    expect(dropLastPage(Buffer.from('not a pdf'))).toBeUndefined();
  });
});
