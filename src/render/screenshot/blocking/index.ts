/**
 * blockAds and blockCookieBanners: the blocking a capture asks for, attached to its page before
 * navigation and detached after the shot. The capture path calls it only when an option is on;
 * a capture without them has nothing attached, not even this module's dependencies loaded.
 *
 * Per page: requests matched by the lists are blocked in Chromium (network.ts); consent pop-ups
 * are refused by DuckDuckGo's autoconsent rules (consent.ts); right before the shot the lists'
 * element-hiding rules hide what is left (cosmetics.ts). The engines are loaded once per process,
 * on first use, and shared read-only by every page; a page's own state is freed in `detach`.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Request as FilterRequest, FiltersEngine, RequestType } from '@ghostery/adblocker';
import type { Logger } from 'pino';
import type { Page } from 'playwright-core';
import { AppError } from '../../../errors.js';
import { type ConsentKit, type ConsentRefusal, refuseConsent } from './consent.js';
import { hideElements } from './cosmetics.js';
import { defaultListsDir, type EngineKind, loadEngine } from './lists.js';
import { blockRequests } from './network.js';

export { defaultListsDir, LIST_SOURCES, type ListsManifest, readManifest } from './lists.js';

export interface BlockingOptions {
  ads: boolean;
  cookieBanners: boolean;
  /** `Date.now()` after which the request has run out of time: `beforeCapture` never waits past it. */
  deadline?: number;
}

/** What one page needs around its capture. */
export interface PageBlocking {
  beforeCapture(): Promise<void>;
  detach(): Promise<void>;
}

export interface Blocker {
  /** Called after the lease and before navigation, only when an option is on. */
  attach(page: Page, opts: BlockingOptions): Promise<PageBlocking>;
  close(): Promise<void>;
}

export interface BlockingConfig {
  /** The folder `npm run setup` built the engines into. */
  listsDir: string;
  /** Longest `beforeCapture` waits for a consent pop-up to be refused, in milliseconds. */
  consentWaitMs: number;
}

/** The engines where set-up puts them; consent pop-ups get up to 1.5 s. */
export function defaultBlockingConfig(): BlockingConfig {
  return { listsDir: defaultListsDir(), consentWaitMs: 1500 };
}

/**
 * Time `beforeCapture` leaves for the capture itself before the request's deadline: the consent
 * wait stops 1 s before it, the element hiding (which the options promise, and takes ~20-50 ms)
 * may run until 0.5 s before it.
 */
const CONSENT_RESERVE_MS = 1000;
const HIDING_RESERVE_MS = 500;
/** Longest the element-hiding pass may take over all frames. */
const HIDING_MS = 1000;
/** Early hiding passes per page (one per top-level document, a page that keeps moving gets no more). */
const MAX_EARLY_PASSES = 4;

type MakeRequest = (details: { url: string; sourceUrl?: string; type?: RequestType }) => FilterRequest;

/** What attaching to a page with no option on gives: nothing. */
const NOTHING: PageBlocking = { beforeCapture: async () => {}, detach: async () => {} };

/** The autoconsent package's content script, rules and snippets. */
async function loadConsentKit(): Promise<ConsentKit> {
  const { filterCompactRules, evalSnippets } = await import('@duckduckgo/autoconsent');
  const require = createRequire(import.meta.url);
  const dist = path.dirname(require.resolve('@duckduckgo/autoconsent'));
  const script = await readFile(path.join(dist, 'autoconsent.playwright.js'), 'utf8');
  const compact = JSON.parse(
    await readFile(require.resolve('@duckduckgo/autoconsent/rules/compact-rules.json'), 'utf8'),
  ) as Parameters<typeof filterCompactRules>[0];
  return {
    script,
    rulesFor: (url, mainFrame) => ({ compact: filterCompactRules(compact, { url, mainFrame }) }),
    snippets: evalSnippets as unknown as Record<string, () => unknown>,
  };
}

/**
 * Creates the blocker. Nothing loads until the first page asks for an option: that attach loads
 * the engines and autoconsent (0.24 s on an idle machine, 0.55-0.8 s under load; +25 MiB of
 * buffers and +4 MiB of heap, measured by bench:blocking), later ones take ~20-60 ms.
 */
export async function createBlocker(config: BlockingConfig, deps: { log: Logger }): Promise<Blocker> {
  const { log } = deps;
  const engines = new Map<EngineKind, Promise<FiltersEngine>>();
  let makeRequest: Promise<MakeRequest> | undefined;
  let consentKit: Promise<ConsentKit> | undefined;
  let closed = false;

  /** Loads once and keeps it; a failure is not kept, so set-up run later takes effect. */
  const once = <T>(
    get: () => Promise<T> | undefined,
    set: (p: Promise<T> | undefined) => void,
    load: () => Promise<T>,
  ) => {
    const existing = get();
    if (existing) return existing;
    const loading = load();
    set(loading);
    loading.catch(() => set(undefined));
    return loading;
  };

  const engine = (kind: EngineKind) =>
    once(
      () => engines.get(kind),
      (p) => (p ? engines.set(kind, p) : engines.delete(kind)),
      async () => {
        const started = performance.now();
        const loaded = await loadEngine(config.listsDir, kind);
        log.info({ engine: kind, ms: Math.round(performance.now() - started) }, 'blocking engine loaded');
        return loaded;
      },
    );
  const requests = () =>
    once(
      () => makeRequest,
      (p) => {
        makeRequest = p;
      },
      async () => {
        const { Request } = await import('@ghostery/adblocker');
        return (details) => Request.fromRawDetails(details);
      },
    );
  const consent = () =>
    once(
      () => consentKit,
      (p) => {
        consentKit = p;
      },
      loadConsentKit,
    );

  return {
    async attach(page, opts) {
      if (closed) throw new AppError('unavailable', 'The server is shutting down', { retryAfter: 1 });
      if (!opts.ads && !opts.cookieBanners) return NOTHING;
      const [make, kit, ads, cookieBanners] = await Promise.all([
        requests(),
        opts.cookieBanners ? consent() : undefined,
        opts.ads ? engine('ads') : undefined,
        opts.cookieBanners ? engine('cookieBanners') : undefined,
      ]);
      return attachToPage(page, opts, {
        make,
        kit,
        engines: { ads, cookieBanners },
        consentWaitMs: config.consentWaitMs,
        log,
      });
    },
    async close() {
      closed = true;
      engines.clear();
      makeRequest = undefined;
      consentKit = undefined;
    },
  };
}

/** Installs the blocking on one page; undoes what it installed if a step fails. */
async function attachToPage(
  page: Page,
  opts: BlockingOptions,
  parts: {
    make: MakeRequest;
    kit: ConsentKit | undefined;
    engines: Partial<Record<EngineKind, FiltersEngine>>;
    consentWaitMs: number;
    log: Logger;
  },
): Promise<PageBlocking> {
  const { make, kit, log } = parts;
  const engines = [parts.engines.ads, parts.engines.cookieBanners].filter((e) => e !== undefined);
  const network = await blockRequests(page, engines, make);
  let refusal: ConsentRefusal | undefined;
  try {
    if (kit) refusal = await refuseConsent(page, kit);
  } catch (err) {
    await network.detach();
    throw err;
  }
  // An early pass as each top-level document is parsed, so the layout (and lazy content) settles
  // without the ads; the pass before the shot catches what scripts added since. Ads only: hiding
  // a consent manager's banner this early would keep autoconsent from seeing it to refuse it.
  const early = parts.engines.ads;
  let passes = 0;
  const earlyPasses: Array<Promise<number>> = [];
  const onParsed = () => {
    if (!early || passes++ >= MAX_EARLY_PASSES) return;
    earlyPasses.push(hideElements([page.mainFrame()], [early], make, network.blocked, HIDING_MS));
  };
  if (early) page.on('domcontentloaded', onParsed);
  const left = (reserve: number) => (opts.deadline ?? Number.POSITIVE_INFINITY) - Date.now() - reserve;
  let hiddenFrames = 0;
  return {
    async beforeCapture() {
      if (refusal) await refusal.settle(Math.min(parts.consentWaitMs, left(CONSENT_RESERVE_MS)));
      hiddenFrames = await hideElements(
        page.frames(),
        engines,
        make,
        network.blocked,
        Math.min(HIDING_MS, left(HIDING_RESERVE_MS)),
      );
    },
    async detach() {
      page.off('domcontentloaded', onParsed);
      await refusal?.detach();
      const blocked = network.count;
      await network.detach();
      await Promise.allSettled(earlyPasses);
      log.debug(
        {
          blockedRequests: blocked,
          consentRefused: refusal?.refused ?? [],
          hiddenFrames,
          ads: opts.ads,
          cookieBanners: opts.cookieBanners,
        },
        'blocking detached',
      );
    },
  };
}
