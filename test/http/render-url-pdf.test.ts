// @module-tag chromium
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUrl } from '../../src/auth/signing.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/errors.js';
import { type PageServer, startPageServer } from '../helpers/pages.js';
import { firstPagePng, readPdf } from '../helpers/pdf-pages.js';
import { pixelAt } from '../helpers/png.js';

// format=pdf (issue 29 §1) on real Chromium, read back with poppler: pages and paper size with
// pdfinfo, the words with pdftotext; cached, ETag'd, signed and plan-gated like the images.
let t: TestApp;
let pages: PageServer;
let pngOnlyKey: string;

const shot = (query: Record<string, string>, headers: Record<string, string> = {}) =>
  t.inject({ method: 'GET', url: `/render/url?${new URLSearchParams(query)}`, headers });

function plansFile(): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'cardshot-pdf-plans-')), 'plans.json');
  writeFileSync(
    file,
    JSON.stringify({
      pngonly: {
        templates: '*',
        screenshots: { viewports: '*', concurrency: 1, queue: 2, options: ['delay'] },
        rateLimit: { requests: 100, windowSeconds: 60 },
      },
    }),
  );
  return file;
}

beforeAll(async () => {
  pages = await startPageServer();
  // 30 s: Chromium lays the whole 10,000-page page out before printing its first 101 pages,
  // 10–15 s on a loaded CI node (one run answered 504 at the default 15 s).
  t = await startTestApp({
    allowPrivateHosts: [pages.hostPort],
    pdfMaxPages: 100,
    plansFile: plansFile(),
    screenshotTimeoutMs: 30_000,
  });
  const account = await t.modules.accounts.accounts.createAccount({
    name: 'PNG only',
    email: 'pngonly@example.com',
    plan: 'pngonly',
  });
  pngOnlyKey = (
    await t.modules.accounts.accounts.createKey({ accountId: account.id, name: 'k', environment: 'test' })
  ).key;
});
afterAll(async () => {
  await t?.close();
  await pages?.close();
});

describe('format=pdf', () => {
  it('prints the page on A4: application/pdf, text stays text, links stay links', async () => {
    const res = await shot({ url: `${pages.url}/pdf/invoice`, format: 'pdf' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['x-pdf-pages']).toBe('1');
    expect(res.headers['x-pdf-truncated']).toBeUndefined();
    expect(res.headers.etag).toMatch(/^"[0-9a-f]{40}"$/);
    expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const { info, text } = await readPdf(res.rawPayload);
    expect(info.Pages).toBe('1');
    expect(info['Page size']).toBe('595.92 x 842.88 pts (A4)');
    expect(text).toContain('Invoice 2026-0042');
    expect(text).toContain('Pay online');
    // The link is a link annotation with its target, not just blue text.
    expect(res.rawPayload.toString('latin1')).toMatch(/\/URI \(https:\/\/example\.com\/pay\)/);
  });

  it('is cached and revalidated like an image: HIT, the same ETag, 304', async () => {
    const url = `${pages.url}/pdf/invoice?cache`;
    const first = await shot({ url, format: 'pdf' });
    expect(first.headers['x-cache']).toBe('MISS');
    const second = await shot({ url, format: 'pdf' });
    expect(second.headers['x-cache']).toBe('HIT');
    expect(second.headers['content-type']).toBe('application/pdf');
    expect(second.headers['x-pdf-pages']).toBe('1');
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    const again = await shot({ url, format: 'pdf' }, { 'if-none-match': String(first.headers.etag) });
    expect(again.statusCode).toBe(304);
    // The PNG of the same page is another entry.
    const png = await shot({ url });
    expect(png.headers['content-type']).toBe('image/png');
    expect(png.headers['x-cache']).toBe('MISS');
  });

  it('takes paper, landscape, margin and pageRanges', async () => {
    const res = await shot({
      url: `${pages.url}/pdf/pages?n=12`,
      format: 'pdf',
      paper: 'letter',
      landscape: 'true',
      margin: '1cm 2cm 1cm 2cm',
      pageRanges: '2-3, 10',
    });
    expect(res.statusCode).toBe(200);
    const { info, text } = await readPdf(res.rawPayload);
    expect(info.Pages).toBe('3');
    expect(info['Page size']).toBe('792 x 612 pts (letter)');
    expect(text).toContain('Page 2 of 12');
    expect(text).toContain('Page 10 of 12');
    expect(text).not.toContain('Page 1 of 12');
    expect(res.headers['x-pdf-pages']).toBe('3');
  });

  it('prints with print media by default, and with screen media on request', async () => {
    const print = await readPdf((await shot({ url: `${pages.url}/pdf/media`, format: 'pdf' })).rawPayload);
    expect(print.text).toContain('PRINT MEDIA');
    expect(print.text).not.toContain('SCREEN MEDIA');
    const screen = await readPdf(
      (await shot({ url: `${pages.url}/pdf/media`, format: 'pdf', media: 'screen' })).rawPayload,
    );
    expect(screen.text).toContain('SCREEN MEDIA');
    expect(screen.text).not.toContain('PRINT MEDIA');
  });

  it('prints backgrounds by default, and leaves them out with printBackground=false', async () => {
    const url = `${pages.url}/pdf/invoice?bg`;
    const withBg = await shot({ url, format: 'pdf' });
    const without = await shot({ url, format: 'pdf', printBackground: 'false' });
    expect(without.statusCode).toBe(200);
    expect(without.headers.etag).not.toBe(withBg.headers.etag);
    // Inside the header band (CSS 130, 25 at 3/8 of a pixel each): dark blue, or the paper's white.
    expect(await pixelAt(await firstPagePng(withBg.rawPayload), 50, 10)).toEqual([0, 26, 102, 255]);
    expect(await pixelAt(await firstPagePng(without.rawPayload), 50, 10)).toEqual([255, 255, 255, 255]);
  });

  it('prints at most CARDSHOT_PDF_MAX_PAGES pages of a page that prints 10,000, and says so', {
    timeout: 60_000,
  }, async () => {
    const started = performance.now();
    const res = await shot({ url: `${pages.url}/pdf/pages?n=10000`, format: 'pdf' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-pdf-truncated']).toBe('true');
    expect(res.headers['x-pdf-pages']).toBe('100');
    const { info, text } = await readPdf(res.rawPayload);
    expect(info.Pages).toBe('100');
    expect(text).toContain('Page 100 of 10000');
    expect(text).not.toContain('Page 101 of 10000');
    // Printed whole it took minutes; 10.6–15.5 s in all on loaded CI nodes.
    expect(performance.now() - started).toBeLessThan(30_000);
    // A page exactly at the bound is whole, not truncated.
    const exact = await shot({ url: `${pages.url}/pdf/pages?n=100`, format: 'pdf' });
    expect(exact.headers['x-pdf-truncated']).toBeUndefined();
    expect(exact.headers['x-pdf-pages']).toBe('100');
  });

  it('cuts a last page that sits alone in its page-tree node (a bound of 8, a page of 9)', {
    timeout: 60_000,
  }, async () => {
    // Chromium's page tree holds 8 pages per node: page 9 is the only kid of the second one.
    const small = await startTestApp({ allowPrivateHosts: [pages.hostPort], pdfMaxPages: 8 });
    try {
      const get = (n: number) =>
        small.inject({
          method: 'GET',
          url: `/render/url?${new URLSearchParams({ url: `${pages.url}/pdf/pages?n=${n}`, format: 'pdf' })}`,
        });
      const res = await get(9);
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-pdf-truncated']).toBe('true');
      expect(res.headers['x-pdf-pages']).toBe('8');
      const { info, text } = await readPdf(res.rawPayload);
      expect(info.Pages).toBe('8');
      expect(text).toContain('Page 8 of 9');
      expect(text).not.toContain('Page 9 of 9');
      // poppler renders the updated file, not only reads it.
      expect((await firstPagePng(res.rawPayload)).length).toBeGreaterThan(0);
      const exact = await get(8);
      expect(exact.headers['x-pdf-truncated']).toBeUndefined();
      expect(exact.headers['x-pdf-pages']).toBe('8');
    } finally {
      await small.close();
    }
  });

  it('is served through a signed URL without a key', async () => {
    const signed = signUrl(
      `/render/url?${new URLSearchParams({ url: `${pages.url}/pdf/invoice?signed`, format: 'pdf' })}`,
      {
        keyId: t.key.record.id,
        signingSecret: t.key.signingSecret,
        expiresAt: Math.floor(Date.now() / 1000) + 600,
      },
    );
    const res = await t.inject({ method: 'GET', url: signed, auth: false });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
  });

  it('is refused to a plan whose options leave out format, as the image formats are', async () => {
    await expectError(
      await shot({ url: `${pages.url}/pdf/invoice`, format: 'pdf' }, { 'x-api-key': pngOnlyKey }),
      403,
      'Option "format" not available on your plan',
    );
  });
});

describe('format=pdf refusals', () => {
  const url = 'http://127.0.0.1:9/x';
  const cases: Array<[Record<string, string>, string]> = [
    [{ paper: 'a9', format: 'pdf' }, 'paper must be one of: a4, letter, legal, a3, a5, tabloid (got "a9")'],
    [{ paper: 'letter' }, 'paper applies to format=pdf only; add format=pdf or leave it out'],
    [
      { landscape: 'true', format: 'png' },
      'landscape applies to format=pdf only; add format=pdf or leave it out',
    ],
    [{ fullPage: 'true', format: 'pdf' }, 'fullPage applies to images only; leave it out with format=pdf'],
    [{ selector: '#a', format: 'pdf' }, 'selector applies to images only; leave it out with format=pdf'],
    [
      { quality: '80', format: 'pdf' },
      'quality applies to jpeg, webp and avif only; leave it out, or add format=jpeg, webp or avif',
    ],
    [{ scale: '3', format: 'pdf' }, 'scale must be a number from 0.1 to 2 with format=pdf (got "3")'],
    [{ scale: '0.05', format: 'pdf' }, 'scale must be a number from 0.1 to 2 with format=pdf (got "0.05")'],
    [
      { margin: '1cm 2cm', format: 'pdf' },
      'margin must be a CSS length (px, in, cm or mm; for example 10mm), or four of them for top, right, bottom and left (got "1cm 2cm")',
    ],
    [{ margin: '3in', format: 'pdf' }, 'margin: each side must be at most 2in (50.8mm) (got "3in")'],
    [
      { pageRanges: '5-2', format: 'pdf' },
      'pageRanges must be page numbers or ranges from 1, comma-separated (for example 1-5, 8, 11-13) (got "5-2")',
    ],
    [{ media: 'tv' }, 'media must be one of: screen, print (got "tv")'],
    [
      { printBackground: 'no', format: 'pdf' },
      'printBackground must be true or false (or 1 or 0) (got "no")',
    ],
  ];
  for (const [query, message] of cases) {
    it(`400 for ${JSON.stringify(query)}`, async () => {
      await expectError(await shot({ url, ...query }), 400, message);
    });
  }

  it('400 when pageRanges starts after the last page', async () => {
    await expectError(
      await shot({ url: `${pages.url}/pdf/pages?n=3`, format: 'pdf', pageRanges: '7-9' }),
      400,
      'pageRanges "7-9" selects no page of this page\'s PDF',
    );
  });
});
