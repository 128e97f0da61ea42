/**
 * The unfurl check (issue 30 §2): reads the page once per distinct crawler User-Agent, its
 * robots.txt once and each image it names once, all through the URL guard, then judges what
 * each network will show (analyse.ts). Checks run in a work queue with a per-account share, so
 * one account's flood waits behind itself; answers are kept briefly per account, and identical
 * checks in flight for one account share one run.
 */
import { LRUCache } from 'lru-cache';
import { AppError } from '../../errors.js';
import { type Clock, systemClock } from '../../lib/clock.js';
import type { WorkQueue } from '../../lib/work-queue.js';
import { raceAbort } from '../../net/fetch.js';
import type { UrlGuard } from '../../net/url-guard.js';
import { normaliseScreenshotUrl, URL_MAX_LENGTH } from '../../render/screenshot/request.js';
import { preflight } from '../../render/screenshot/service/preflight.js';
import type { HeadRead, HeadReader } from '../head/reader.js';
import { PLATFORMS, type PlatformId } from '../platforms.js';
import { analyse } from './analyse.js';
import { absoluteImageUrl, imageTagOf } from './analyse-image.js';
import { type ImageLook, lookAtImage } from './image.js';
import { readRobots } from './robots.js';
import type { UnfurlReport } from './types.js';

/** Who asks, and what the report's fixes should suggest as an og:image when the page has none. */
export interface UnfurlCaller {
  accountId: string;
  /** A card URL for the page's title (a signed Cardshot URL); a placeholder when absent. */
  suggestImage?: (title: string | null) => string;
  /** What the suggestion depends on (the key that signs it): reports are kept apart by it. */
  variant?: string;
}

/** Checks links. */
export interface UnfurlService {
  /** The report for `url`; 400 for a URL that is not public http(s), 429/503 past the queue's bounds. */
  check(url: string, caller: UnfurlCaller, signal?: AbortSignal): Promise<UnfurlReport>;
  close(): Promise<void>;
}

export interface UnfurlDeps {
  guard: UrlGuard;
  reader: HeadReader;
  queue: WorkQueue;
  timeoutMs: number;
  cacheMs: number;
  perAccount: number;
  clock?: Clock;
  /** An extra certificate authority (test fixtures' https servers). */
  ca?: string;
}

const PLACEHOLDER = 'https://example.com/og/card.png';
/** The User-Agent robots.txt and images are fetched with (each network's own is for the page). */
const CHECKER_UA = 'Mozilla/5.0 (compatible; Cardshot-Unfurl/1.0; +https://github.com/cardshot)';
/** Images are counted up to just past the largest size any network accepts. */
const IMAGE_COUNT_BYTES = Math.max(...PLATFORMS.map((p) => p.maxBytes));

/** Creates the service. */
export function createUnfurlService(deps: UnfurlDeps): UnfurlService {
  const clock = deps.clock ?? systemClock;
  const cache = new LRUCache<string, { at: number; report: UnfurlReport }>({ max: 1000 });
  /** Checks in flight by key, each with the callers still waiting for it. */
  const inFlight = new Map<
    string,
    { report: Promise<UnfurlReport>; abort: AbortController; waiting: number }
  >();

  const run = async (url: string, caller: UnfurlCaller, signal: AbortSignal): Promise<UnfurlReport> => {
    const owner = {
      id: caller.accountId,
      concurrency: deps.perAccount,
      maxWaiting: deps.perAccount * 2,
      overShare: () =>
        new AppError('rate_limited', 'Too many link checks in progress for your account; retry shortly', {
          retryAfter: 2,
        }),
    };
    return deps.queue.run(() => gather(deps, url, caller, signal, clock), signal, owner);
  };

  /** The check for `key`, shared by identical requests; it stops only when every one of them has gone. */
  const join = (
    key: string,
    url: string,
    caller: UnfurlCaller,
    signal?: AbortSignal,
  ): Promise<UnfurlReport> => {
    let flight = inFlight.get(key);
    if (!flight) {
      const abort = new AbortController();
      const report = run(url, caller, abort.signal).then((r) => {
        if (deps.cacheMs > 0) cache.set(key, { at: clock.now(), report: r });
        return r;
      });
      const made = { report, abort, waiting: 0 };
      report.finally(() => inFlight.delete(key)).catch(() => {});
      inFlight.set(key, made);
      flight = made;
    }
    const f = flight;
    f.waiting++;
    if (!signal) return f.report;
    const leave = () => {
      if (--f.waiting === 0) f.abort.abort(signal.reason);
    };
    signal.addEventListener('abort', leave, { once: true });
    return raceAbort(f.report, signal).finally(() => signal.removeEventListener('abort', leave));
  };

  return {
    async check(raw, caller, signal) {
      if (raw.length > URL_MAX_LENGTH) {
        throw new AppError(
          'bad_request',
          `url must be at most ${URL_MAX_LENGTH} characters (got ${raw.length})`,
        );
      }
      const url = normaliseScreenshotUrl(raw);
      await preflight(deps.guard, url);
      // Reports whose fixes name a card signed with another key are kept apart.
      const key = `${caller.accountId}\n${caller.variant ?? ''}\n${url}`;
      const kept = cache.get(key);
      if (kept && clock.now() - kept.at < deps.cacheMs) return kept.report;
      return join(key, url, caller, signal);
    },
    async close() {
      cache.clear();
      await deps.queue.close();
    },
  };
}

async function gather(
  deps: UnfurlDeps,
  url: string,
  caller: UnfurlCaller,
  signal: AbortSignal | undefined,
  clock: Clock,
): Promise<UnfurlReport> {
  // One read per distinct User-Agent: two networks that send the same one share it.
  const byAgent = new Map<string, Promise<HeadRead>>();
  for (const p of PLATFORMS) {
    if (!byAgent.has(p.userAgent)) byAgent.set(p.userAgent, deps.reader.read(url, p.userAgent, signal));
  }
  const robotsRead = readRobots(deps.guard, url, {
    timeoutMs: deps.timeoutMs,
    userAgent: CHECKER_UA,
    ...(deps.ca ? { ca: deps.ca } : {}),
    ...(signal ? { signal } : {}),
  });
  const reads = new Map<PlatformId, HeadRead>();
  for (const p of PLATFORMS) reads.set(p.id, await byAgent.get(p.userAgent)!);
  // Each distinct absolute image any network would draw, looked at once.
  const imageUrls = new Set<string>();
  for (const p of PLATFORMS) {
    const read = reads.get(p.id)!;
    const tag = read.ok ? imageTagOf(p, read) : null;
    const abs = tag === null ? null : absoluteImageUrl(tag);
    if (abs) imageUrls.add(abs);
  }
  const looks = await Promise.all(
    [...imageUrls].slice(0, 4).map((u) =>
      lookAtImage(deps.guard, u, {
        timeoutMs: deps.timeoutMs,
        userAgent: CHECKER_UA,
        countBytes: IMAGE_COUNT_BYTES,
        ...(deps.ca ? { ca: deps.ca } : {}),
        ...(signal ? { signal } : {}),
      }),
    ),
  );
  const images = new Map<string, ImageLook>(looks.map((l) => [l.url, l]));
  return analyse({
    url,
    checkedAt: new Date(clock.now()),
    reads,
    robots: await robotsRead,
    images,
    suggestImage: caller.suggestImage ?? (() => PLACEHOLDER),
  });
}
