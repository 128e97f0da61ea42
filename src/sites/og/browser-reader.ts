/**
 * `render: "browser"`: a site whose scripts write its tags is read in the pooled Chromium (the
 * screenshot engine, behind its filtering proxy and URL guard), and the head is taken from the
 * rendered page (page-facts.ts: the title, description, Open Graph and Twitter tags as scripts
 * left them). The capture is the plain screenshot path with `response=json`, so it shares the
 * browser's queue, time-outs and crash handling; its image is not used. The page's other meta tags
 * (`cardshot:*` overrides, a mapping's `author`) are read from the rendered page too. The main
 * frame stays on the site's origins: a redirect or a script's move elsewhere is stopped before
 * it is sent (request-gate.ts), and the read refused; the final URL is checked again.
 */
import { isAppError } from '../../errors.js';
import type { FetchErrorKind } from '../../net/fetch.js';
import { parseScreenshotRequest } from '../../render/screenshot/request.js';
import type { PageFacts, ScreenshotService } from '../../render/screenshot/types.js';
import type { PageMeta } from '../head/parse.js';
import type { HeadRead, HeadReader } from '../head/reader.js';

/** A head reader over the screenshot service. */
export function createBrowserHeadReader(
  screenshots: Pick<ScreenshotService, 'capture' | 'viewports'>,
): Pick<HeadReader, 'read'> {
  return {
    async read(url, _userAgent, _signal, opts) {
      const failed = (failure: FetchErrorKind, detail: string): HeadRead => ({
        ok: false,
        chain: [],
        failure,
        detail,
      });
      try {
        const req = parseScreenshotRequest({ url, response: 'json' }, screenshots.viewports);
        const shot = await screenshots.capture({
          ...req,
          ...(opts?.origins ? { stayOn: opts.origins } : {}),
        });
        const final = new URL(shot.finalUrl);
        if (opts?.origins && !opts.origins.includes(final.origin)) {
          return failed('refused', `the page moved to ${final.origin}, off the site`);
        }
        return {
          ok: true,
          chain: [{ url: shot.finalUrl, status: shot.targetStatus }],
          finalUrl: shot.finalUrl,
          status: shot.targetStatus,
          contentType: 'text/html',
          charset: 'utf-8',
          meta: metaOf(shot.page),
          headTruncated: false,
          bytes: 0,
        };
      } catch (err) {
        if (isAppError(err, 'gateway_timeout')) return failed('timeout', err.detail ?? err.message);
        if (isAppError(err, 'bad_request', 'unprocessable', 'bad_gateway')) {
          return failed('refused', err.detail ?? err.message);
        }
        if (isAppError(err)) return failed('network', err.detail ?? err.message);
        throw err;
      }
    },
  };
}

/** The page's facts as the head parser would have given them. */
function metaOf(facts: PageFacts | undefined): PageMeta {
  return {
    title: facts?.title ?? null,
    description: facts?.description ?? null,
    og: prefixed('og:', facts?.openGraph),
    twitter: prefixed('twitter:', facts?.twitter),
    canonical: facts?.canonical ?? null,
    icons: facts?.icons ?? [],
    themeColor: facts?.themeColor ?? null,
    lang: facts?.lang ?? null,
    robots: null,
    // cardshot:title and the other names a field mapping may read, as scripts left them.
    ...(facts?.other ? { other: facts.other } : {}),
  };
}

function prefixed(prefix: string, tags: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(tags ?? {})) out[`${prefix}${k}`] = v;
  return out;
}
