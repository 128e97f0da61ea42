/**
 * A job's results as one zip, streamed: entries are added a page of rows at a time and each
 * file is opened only when the zip reaches it (yazl's lazy streams), so a 10,000-item zip holds
 * neither the files nor 10,000 open descriptors, only each entry's few bytes of metadata.
 * Images are stored, not deflated: PNG, JPEG, WebP and AVIF are compressed already.
 */
import type { Readable } from 'node:stream';
import yazl from 'yazl';
import { extensionOf, type ResultFiles } from './results.js';
import type { JobStore } from './store/types.js';

const PAGE = 500;

/** The zip of `jobId`'s succeeded items (`<index>.<ext>`, index zero-padded so names sort). */
export function zipResults(store: JobStore, files: ResultFiles, jobId: string, total: number): Readable {
  const zip = new yazl.ZipFile();
  const width = String(Math.max(0, total - 1)).length;
  const fill = async () => {
    for (let after = -1; ; ) {
      const page = await store.listItems(jobId, { status: 'succeeded', after, limit: PAGE });
      for (const item of page) {
        const result = item.result;
        if (!result) continue;
        const name = `${String(item.index).padStart(width, '0')}.${extensionOf(result.contentType)}`;
        zip.addReadStreamLazy(
          name,
          { compress: false, size: result.bytes, mtime: new Date(item.completedAt ?? 0) },
          (cb) => cb(null, files.read(result.file)),
        );
      }
      if (page.length < PAGE) break;
      after = page[page.length - 1]!.index;
    }
    zip.end();
  };
  // Node's stream under yazl's typing (NodeJS.ReadableStream has no destroy).
  const out = zip.outputStream as unknown as Readable;
  // A database error half-way ends the download with an error (a truncated zip), never a hang.
  fill().catch((err: unknown) => out.destroy(err as Error));
  return out;
}
