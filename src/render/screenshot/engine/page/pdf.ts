/**
 * The PDF last step (format=pdf): the ready page printed by Chromium (Page.printToPDF through
 * Playwright), so text stays text and links stay links. At most `maxPdfPages` pages: the page is
 * printed up to one page more than that, and only a page that fills it is printed again, cut.
 */
import { AppError } from '../../../../errors.js';
import { firstPages, marginSides } from '../../option-values.js';
import type { ShotOptions } from '../../options.js';
import type { Lease } from '../browser/lease.js';
import type { LastStep } from './last-step.js';
import { readyPage } from './prepare.js';

/** CARDSHOT_PDF_MAX_PAGES's default. */
export const DEFAULT_PDF_MAX_PAGES = 100;

/** The option's paper names as Chromium's print settings name them. */
const PAPER: Readonly<Record<string, string>> = {
  a4: 'A4',
  letter: 'Letter',
  legal: 'Legal',
  a3: 'A3',
  a5: 'A5',
  tabloid: 'Tabloid',
};

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

/** Playwright's print options for the request's options and the pages to print. */
function printOptions(o: ShotOptions, pageRanges: string) {
  return {
    format: PAPER[o.paper ?? 'a4'] ?? 'A4',
    landscape: o.landscape === true,
    printBackground: o.printBackground !== false,
    scale: o.scale ?? 1,
    pageRanges,
    ...(o.margin !== undefined ? { margin: marginSides(o.margin) } : {}),
  };
}

/** Prints `pageRanges`; a range that starts after the last page is the client's 400. */
async function print(lease: Lease, o: ShotOptions, pageRanges: string): Promise<Buffer> {
  try {
    return await lease.page.pdf(printOptions(o, pageRanges));
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
    // whole took minutes and hundreds of MB; this prints 101 pages at most, and 100 again only
    // when the bound cut it.
    let pdf = await print(lease, options, firstPages(options.pageRanges, maxPages + 1));
    plan.pages = countPdfPages(pdf);
    if (plan.pages > maxPages) {
      pdf = await print(lease, options, firstPages(options.pageRanges, maxPages));
      plan.pages = countPdfPages(pdf);
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
