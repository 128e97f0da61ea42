/**
 * robots.txt as each crawler reads it (RFC 9309, via robots-parser): fetched once per check
 * through the URL guard, at most 500 KiB (the size RFC 9309 §2.5 says crawlers must read at
 * least, and Google's cut). A missing file (4xx) allows everything; an unreachable one or a 5xx
 * is reported as unknown rather than guessed, so the check never invents a refusal.
 */
import robotsModule from 'robots-parser';
import type { UrlGuard } from '../../net/url-guard.js';
import { guardedGet } from '../head/get.js';

/** What robots.txt says about one URL for a crawler's token. */
export interface RobotsRules {
  /** Whether the file could be read (`missing`: 4xx, everything allowed). */
  state: 'read' | 'missing' | 'unknown';
  url: string;
  /** False when the file disallows `url` for `token`. */
  allows(url: string, token: string): boolean;
}

const MAX_BYTES = 500 * 1024;

// The package is CommonJS whose module.exports is the parser; its typings declare it in a way
// NodeNext reads as a namespace, so the default import is typed here.
const robotsParser = robotsModule as unknown as (
  url: string,
  text: string,
) => { isAllowed(url: string, ua?: string): boolean | undefined };

/** Reads `<origin>/robots.txt` for `pageUrl`. */
export async function readRobots(
  guard: UrlGuard,
  pageUrl: string,
  opts: { timeoutMs: number; userAgent: string; ca?: string; signal?: AbortSignal },
): Promise<RobotsRules> {
  const url = new URL('/robots.txt', pageUrl).href;
  const allowAll = (state: RobotsRules['state']): RobotsRules => ({ state, url, allows: () => true });
  try {
    const got = await guardedGet(guard, url, {
      userAgent: opts.userAgent,
      accept: 'text/plain,*/*;q=0.5',
      timeoutMs: opts.timeoutMs,
      maxBytes: MAX_BYTES,
      maxRedirects: 5,
      ...(opts.ca ? { ca: opts.ca } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    if (got.status >= 400 && got.status < 500) return allowAll('missing');
    if (got.status < 200 || got.status > 299) return allowAll('unknown');
    const robots = robotsParser(got.finalUrl, got.body.toString('utf8'));
    return {
      state: 'read',
      url,
      // robots-parser answers undefined for a URL of another origin: that is not a refusal.
      allows: (u, token) => robots.isAllowed(u, token) !== false,
    };
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    return allowAll('unknown');
  }
}
