/**
 * The page head reader (issue 30 §1 and §2): fetches a page as a given crawler through the URL
 * guard, without a browser, reading at most `maxBytes` and stopping where the head ends, and
 * says what the head holds, which charset it was in, and how the page answered (status and
 * redirect chain). Site cards (`/og`) and the unfurl check both read pages through it.
 */
import { FetchError, type FetchErrorKind } from '../../net/fetch.js';
import type { UrlGuard } from '../../net/url-guard.js';
import { chainOf, guardedGet, type Hop } from './get.js';
import { charsetOfContentType, decodeHead, type PageMeta, parseHead, watchHead } from './parse.js';

/** A head read: the page answered (any status), or why it did not. */
export type HeadRead =
  | {
      ok: true;
      /** Every answer on the way, the last included. */
      chain: Hop[];
      finalUrl: string;
      status: number;
      contentType: string | null;
      charset: string;
      meta: PageMeta;
      /** True when the head had not ended within `maxBytes` (tags past that point are unseen). */
      headTruncated: boolean;
      /** Bytes read. */
      bytes: number;
    }
  | {
      ok: false;
      chain: Hop[];
      /** What kept the page from answering; `detail` may name internal addresses: log only. */
      failure: FetchErrorKind;
      detail: string;
    };

export interface HeadReaderOptions {
  guard: UrlGuard;
  /** The whole read, redirects included. */
  timeoutMs: number;
  /** Bytes of the page read at most (1 MB: where Facebook's crawler stops too). */
  maxBytes: number;
  /** Redirects followed, each hop checked by the guard. */
  maxRedirects: number;
  /** An extra certificate authority (test fixtures' https servers). */
  ca?: string;
}

/** What one read may add. */
export interface ReadOptions {
  /**
   * The origins redirects may lead to (a site card's read stays on the site's): each hop is
   * checked before it is followed, by this reader and by the browser's alike.
   */
  origins?: readonly string[];
}

/** Reads page heads. */
export interface HeadReader {
  /** The head of `url` as `userAgent` gets it; never throws for the page's own failures. */
  read(url: string, userAgent: string, signal?: AbortSignal, opts?: ReadOptions): Promise<HeadRead>;
}

/** Whether a URL is on one of `origins`. */
function onOrigins(origins: readonly string[]): (url: URL) => boolean {
  const allowed = new Set(origins);
  return (url) => allowed.has(url.origin);
}

/** HTML and XHTML; anything else has no head to read (a PDF, an image). */
const HTML_TYPES = /^(text\/html|application\/xhtml\+xml)\b/i;

/** Creates a reader over the guard. */
export function createHeadReader(opts: HeadReaderOptions): HeadReader {
  return {
    async read(url, userAgent, signal, readOpts) {
      const watcher = watchHead();
      try {
        const got = await guardedGet(opts.guard, url, {
          userAgent,
          accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8',
          timeoutMs: opts.timeoutMs,
          maxBytes: opts.maxBytes,
          maxRedirects: opts.maxRedirects,
          ...(opts.ca ? { ca: opts.ca } : {}),
          enough: (part) => watcher.feed(part),
          ...(signal ? { signal } : {}),
          ...(readOpts?.origins ? { followable: onOrigins(readOpts.origins) } : {}),
        });
        const contentType = got.headers['content-type'] ?? null;
        const html = contentType === null || HTML_TYPES.test(contentType);
        const { text, charset } = html
          ? decodeHead(got.body, charsetOfContentType(contentType ?? undefined), watcher.declaredCharset())
          : { text: '', charset: 'utf-8' };
        return {
          ok: true,
          chain: got.chain,
          finalUrl: got.finalUrl,
          status: got.status,
          contentType,
          charset,
          meta: parseHead(text),
          headTruncated: html && got.truncated,
          bytes: got.body.length,
        };
      } catch (err) {
        if (!(err instanceof FetchError)) throw err;
        return { ok: false, chain: chainOf(err), failure: err.kind, detail: err.detail };
      }
    },
  };
}
