/**
 * The PDF last step (format=pdf): the ready page printed by Chromium (Page.printToPDF), so
 * text stays text and links stay links. At most `maxPdfPages` pages: the page is printed up to
 * one page more than that, and a page that fills it loses that last page (pdf-trim.ts).
 */
import { AppError } from '../../../../errors.js';
import { firstPages, marginSides } from '../../option-values.js';
import type { ShotOptions } from '../../options.js';
import type { Lease } from '../browser/lease.js';
import type { LastStep } from './last-step.js';
import { dropLastPage } from './pdf-trim.js';
import { readyPage } from './prepare.js';

/** CARDSHOT_PDF_MAX_PAGES's default. */
export const DEFAULT_PDF_MAX_PAGES = 100;

/** What to print (from `prepare`), and what the print found (`take` fills it in). */
export interface PdfPlan {
  options: ShotOptions;
  maxPages: number;
  pages: number;
  truncated: boolean;
}

/**
 * Chromium's PDFs (Skia) hold one uncompressed `/Type /Page` dictionary per page (checked against
 * pdfinfo here); the page tree's own nodes are `/Type /Pages`.
 */
export function countPdfPages(pdf: Buffer): number {
  return pdf.toString('latin1').match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;
}

/** The option's paper sizes in inches (width, height), as Playwright's paper formats give them. */
const PAPER_INCHES: Readonly<Record<string, readonly [number, number]>> = {
  a4: [8.27, 11.7],
  letter: [8.5, 11],
  legal: [8.5, 14],
  a3: [11.7, 16.54],
  a5: [5.83, 8.27],
  tabloid: [11, 17],
};

/** Units of a normalised margin (option-values.ts) per inch. */
const PER_INCH: Readonly<Record<string, number>> = { px: 96, in: 1, cm: 2.54, mm: 25.4 };

/** A normalised CSS length (`10mm`, `0.5in`, `0`) in inches. */
function inches(length: string): number {
  const m = /^([\d.]+)(px|in|cm|mm)?$/.exec(length);
  if (!m) throw new Error(`unexpected margin ${length}`);
  return Number(m[1]) / (PER_INCH[m[2] ?? 'px'] ?? 96);
}

/** What a PDF is printed with (Page.printToPDF's parameters). */
export interface PrintParams {
  paperWidth: number;
  paperHeight: number;
  landscape: boolean;
  printBackground: boolean;
  scale: number;
  pageRanges: string;
  marginTop: number;
  marginRight: number;
  marginBottom: number;
  marginLeft: number;
}

/** Page.printToPDF's parameters for the request's options and the pages to print. */
export function printParams(o: ShotOptions, pageRanges: string): PrintParams {
  const [paperWidth, paperHeight] = PAPER_INCHES[o.paper ?? 'a4'] ?? PAPER_INCHES.a4!;
  const m = o.margin !== undefined ? marginSides(o.margin) : undefined;
  return {
    paperWidth,
    paperHeight,
    landscape: o.landscape === true,
    printBackground: o.printBackground !== false,
    scale: o.scale ?? 1,
    pageRanges,
    marginTop: m ? inches(m.top) : 0,
    marginRight: m ? inches(m.right) : 0,
    marginBottom: m ? inches(m.bottom) : 0,
    marginLeft: m ? inches(m.left) : 0,
  };
}

/**
 * Prints `pageRanges`; a range that starts after the last page is the client's 400. Straight
 * over the capture's CDP session, the PDF in the answer: Playwright's page.pdf() asks for a
 * stream and reads it back in IO.read calls, two or three more round trips for a PDF of a few
 * pages. The same parameters as page.pdf() sends: no header or footer, the paper size of the
 * options rather than the page's CSS, untagged and without an outline (both cost time).
 */
async function print(lease: Lease, o: ShotOptions, pageRanges: string): Promise<Buffer> {
  try {
    const { data } = await lease.cdp.send('Page.printToPDF', {
      ...printParams(o, pageRanges),
      displayHeaderFooter: false,
      preferCSSPageSize: false,
      generateTaggedPDF: false,
      generateDocumentOutline: false,
      transferMode: 'ReturnAsBase64',
    });
    return Buffer.from(data, 'base64');
  } catch (err) {
    if (!/Page range exceeds page count/i.test((err as Error)?.message ?? '')) throw err;
    throw new AppError(
      'bad_request',
      `pageRanges ${JSON.stringify(o.pageRanges)} selects no page of this page's PDF`,
      {
        detail: (err as Error).message,
      },
    );
  }
}

export const pdfDocument: LastStep<PdfPlan> = {
  async prepare(lease, input, state) {
    await readyPage(lease, input, state);
    return {
      options: input.options ?? {},
      maxPages: input.maxPdfPages ?? DEFAULT_PDF_MAX_PAGES,
      pages: 0,
      truncated: false,
    };
  },
  async take(lease, plan) {
    if (!plan) throw new Error('a PDF without its plan');
    const { options, maxPages } = plan;
    // One page more than the bound tells whether there were more: printing a 10,000-page page
    // whole took minutes and hundreds of MB; this prints 101 pages at most, and drops the last
    // one when the bound cut it (pdf-trim.ts): each print lays the whole page out again, so
    // printing 100 again doubled the time. A PDF laid out otherwise than Skia's is printed again.
    let pdf = await print(lease, options, firstPages(options.pageRanges, maxPages + 1));
    plan.pages = countPdfPages(pdf);
    if (plan.pages > maxPages) {
      const cut = plan.pages === maxPages + 1 ? dropLastPage(pdf) : undefined;
      pdf = cut ?? (await print(lease, options, firstPages(options.pageRanges, maxPages)));
      // The dropped page's objects stay in the file, unreferenced: counted, they would be one too many.
      plan.pages = cut ? maxPages : countPdfPages(pdf);
      plan.truncated = true;
    }
    return pdf;
  },
  // Chromium's PDF is the answer as it is.
  finish: async (raw) => raw,
  facts: (plan) => ({
    ...(plan ? { pages: plan.pages } : {}),
    ...(plan?.truncated ? { truncated: true as const } : {}),
  }),
};
