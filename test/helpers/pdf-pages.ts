import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * Fixture pages for format=pdf (issue 29), served by the page server (pages.ts) under /pdf/, and
 * poppler's pdfinfo and pdftotext to read the answers as a reader's PDF viewer would.
 *
 * - /pdf/invoice: "Invoice 2026-0042" with a link to https://example.com/pay and a dark-blue
 *   header band (a background: printed unless printBackground=false).
 * - /pdf/pages?n=N: N pages, each "Page k of N" (break-after: page).
 * - /pdf/media: "SCREEN MEDIA" on screen, "PRINT MEDIA" in print.
 */
const doc = (body: string, head = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><title>pdf</title>${head}</head><body>${body}</body></html>`;

const INVOICE = doc(
  `<div style="background:#001a66;color:#fff;padding:20px;font:24px sans-serif">Invoice 2026-0042</div>
<p style="font:16px sans-serif">Amount due: 120.00 EUR. <a href="https://example.com/pay">Pay online</a></p>`,
);

const MEDIA = doc(
  '<p class="screen">SCREEN MEDIA</p><p class="print">PRINT MEDIA</p>',
  '<style>.print{display:none} @media print { .print{display:block} .screen{display:none} }</style>',
);

/** Answers a /pdf/ fixture; false when `u` is not one. */
export function pdfPage(u: URL, send: (body: string) => void): boolean {
  if (u.pathname === '/pdf/invoice') send(INVOICE);
  else if (u.pathname === '/pdf/media') send(MEDIA);
  else if (u.pathname === '/pdf/pages') {
    const n = Math.min(20_000, Number(u.searchParams.get('n') ?? 3));
    const pages = Array.from(
      { length: n },
      (_, i) => `<section style="break-after:page;font:14px sans-serif">Page ${i + 1} of ${n}</section>`,
    );
    send(doc(pages.join('')));
  } else return false;
  return true;
}

const run = promisify(execFile);

/** pdfinfo's fields (Pages, Page size, …) and pdftotext's text of a PDF. */
export async function readPdf(pdf: Buffer): Promise<{ info: Record<string, string>; text: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-pdf-'));
  try {
    const file = path.join(dir, 'a.pdf');
    await writeFile(file, pdf);
    const { stdout: infoOut } = await run('pdfinfo', [file]);
    const { stdout: text } = await run('pdftotext', ['-layout', file, '-'], { maxBuffer: 64 * 1024 * 1024 });
    const info: Record<string, string> = {};
    for (const line of infoOut.split('\n')) {
      const m = /^([^:]+):\s*(.*)$/.exec(line);
      if (m) info[m[1]!] = m[2]!;
    }
    return { info, text };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The first page drawn by pdftoppm at 36 dpi (3/8 of a pixel per CSS pixel), as PNG. */
export async function firstPagePng(pdf: Buffer): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-pdf-'));
  try {
    const file = path.join(dir, 'a.pdf');
    await writeFile(file, pdf);
    await run('pdftoppm', [
      '-png',
      '-r',
      '36',
      '-f',
      '1',
      '-l',
      '1',
      '-singlefile',
      file,
      path.join(dir, 'page'),
    ]);
    return await readFile(path.join(dir, 'page.png'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
