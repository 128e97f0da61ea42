/**
 * Refusing consent pop-ups with DuckDuckGo's autoconsent: its content script (shipped in the
 * package, the Playwright build their own test runner injects) runs in every frame of the page,
 * finds the consent manager by the package's rules, and clicks its "reject" path. The content
 * script talks to us through one binding; we answer with the rules and run the package's own
 * main-world snippets when a rule asks for one.
 *
 * The binding is callable by the page too, so nothing a message says is trusted: only the
 * package's snippets run (looked up by id, never the code in the message), every answer is a
 * boolean, and a page gets a bounded number of messages answered.
 */
import type { Frame, Page } from 'playwright-core';
import { pause } from '../../../lib/timeout.js';

/** What the package provides, loaded once per process on first use. */
export interface ConsentKit {
  /** The content script (dist/autoconsent.playwright.js). */
  script: string;
  /** The rules for one frame: the package's compact rules filtered for its URL. */
  rulesFor(url: string, mainFrame: boolean): unknown;
  /** The package's main-world snippets, by id. */
  snippets: Readonly<Record<string, () => unknown>>;
}

/** How autoconsent runs: refuse (opt out), never accept; hide what it cannot click. */
const CONFIG = {
  enabled: true,
  autoAction: 'optOut',
  disabledCmps: [],
  enablePrehide: true,
  enableCosmeticRules: true,
  enableGeneratedRules: true,
  detectRetries: 20,
  // Generic banners with no known manager: click "reject", or "OK" on a notice that offers
  // nothing else, never "accept".
  heuristicMode: 'tier1',
  logs: {
    lifecycle: false,
    rulesteps: false,
    detectionsteps: false,
    evals: false,
    errors: false,
    messages: false,
    waits: false,
  },
};

/** Messages answered per page; a page that calls the binding more is ignored from then on. */
const MAX_MESSAGES = 400;
/** Documents (frames) that get the rules: ~65 KB of them for a top document, ~3 KB for a frame. */
const MAX_INSTANCES = 30;

/** Lifecycle states after which a frame has nothing more to do. */
const FINISHED = new Set([
  'nothingDetected',
  'done',
  'optOutSucceeded',
  'optOutFailed',
  'optInSucceeded',
  'optInFailed',
]);
/** States in which a consent manager was found and is being dealt with. */
const WORKING = new Set(['cmpDetected', 'openPopupDetected', 'runningOptOut']);

interface InstanceState {
  mainFrame: boolean;
  lifecycle: string;
  /** Searches for a consent manager started so far. */
  attempts: number;
  /** `Date.now()` when `lifecycle` or `attempts` last changed. */
  since: number;
}

/**
 * How long the page must stay silent, once its first search began, before that silence means
 * "nothing here". A search sends its script checks to us and reports a find at once, so its end
 * shows as the messages stopping; 150 ms covers a slow page's last DOM checks.
 */
const SEARCH_QUIET_MS = 150;

type Message = {
  type?: unknown;
  id?: unknown;
  snippetId?: unknown;
  instanceId?: unknown;
  mainFrame?: unknown;
  state?: unknown;
};

/** One page's consent handling. */
export interface ConsentRefusal {
  /** Waits (at most `ms`) until the consent manager in the page was dealt with, or none was found. */
  settle(ms: number): Promise<void>;
  /** Names of the consent managers refused so far. */
  readonly refused: readonly string[];
  detach(): void;
}

/**
 * True when the page has nothing left to wait for: no frame is in the middle of refusing, and
 * the top document finished, or searched (once DOMContentLoaded) without a find: it started and
 * then went quiet. Its later searches (every 0.5 s while the DOM changes, for up to a minute) are
 * not waited for: a banner not in the page yet is not in the screenshot either, and one that is
 * there gets hidden by the cookie-notice list right after. Waiting for the second search cost a
 * banner-free page ~1 s; a fixed 300 ms after the first, ~0.5 s (bench:blocking).
 */
export function settled(
  states: Iterable<InstanceState>,
  main: InstanceState | undefined,
  lastMessageAt: number,
  now = Date.now(),
): boolean {
  for (const s of states) if (WORKING.has(s.lifecycle)) return false;
  if (!main) return false;
  if (FINISHED.has(main.lifecycle)) return true;
  const quiet = now - Math.max(main.since, lastMessageAt);
  return main.lifecycle === 'started' && main.attempts >= 1 && quiet >= SEARCH_QUIET_MS;
}

/** Starts refusing consent pop-ups in `page` (before it navigates). */
export async function refuseConsent(page: Page, kit: ConsentKit): Promise<ConsentRefusal> {
  const instances = new Map<string, InstanceState>();
  let mainInstance: InstanceState | undefined;
  const refused: string[] = [];
  let answered = 0;
  let inits = 0;
  let lastMessageAt = 0;
  let detached = false;
  let changed: () => void = () => {};

  // Handed over as JSON text: Playwright's own argument encoding took ~200 ms (and held up the
  // page's DOMContentLoaded) for the ~65 KB of rules a top document gets; JSON.parse, ~1 ms.
  const reply = (frame: Frame, message: unknown) =>
    frame
      .evaluate((json) => {
        const g = globalThis as { autoconsentReceiveMessage?: (m: unknown) => unknown };
        return g.autoconsentReceiveMessage?.(JSON.parse(json));
      }, JSON.stringify(message))
      .catch(() => {});

  const runSnippet = async (frame: Frame, id: unknown): Promise<boolean> => {
    const snippet = typeof id === 'string' && Object.hasOwn(kit.snippets, id) ? kit.snippets[id] : undefined;
    if (!snippet) return false;
    // The package's own function, as its source; a throwing snippet means "no".
    const source = `(() => { try { return !!(${snippet.toString()})(); } catch { return false; } })()`;
    return (await frame.evaluate(source).catch(() => false)) === true;
  };

  const report = (msg: Message) => {
    if (typeof msg.instanceId !== 'string' || typeof msg.state !== 'object' || msg.state === null) return;
    const state = msg.state as { lifecycle?: unknown; findCmpAttempts?: unknown };
    const known = instances.get(msg.instanceId);
    if (!known && instances.size >= MAX_INSTANCES) return;
    const lifecycle = String(state.lifecycle);
    const attempts = Number(state.findCmpAttempts) || 0;
    const same = known?.lifecycle === lifecycle && known.attempts === attempts;
    const next: InstanceState = {
      mainFrame: msg.mainFrame === true,
      lifecycle,
      attempts,
      since: same ? known.since : Date.now(),
    };
    instances.set(msg.instanceId, next);
    if (next.mainFrame) mainInstance = next;
  };

  const onMessage = async ({ frame }: { frame: Frame }, msg: Message) => {
    if (detached || answered >= MAX_MESSAGES || typeof msg !== 'object' || msg === null) return;
    answered++;
    switch (msg.type) {
      case 'init':
        // One per document; a page asking again and again only makes us filter and send rules.
        if (++inits > MAX_INSTANCES) break;
        await reply(frame, {
          type: 'initResp',
          config: CONFIG,
          rules: kit.rulesFor(frame.url(), frame.parentFrame() === null),
        });
        break;
      case 'eval':
        await reply(frame, {
          type: 'evalResp',
          id: String(msg.id),
          result: await runSnippet(frame, msg.snippetId),
        });
        break;
      case 'autoconsentDone':
        if (refused.length < 10) refused.push(String((msg as { cmp?: unknown }).cmp).slice(0, 100));
        break;
      case 'report':
        report(msg);
        break;
    }
    lastMessageAt = Date.now();
    changed();
  };

  await page.exposeBinding('autoconsentSendMessage', onMessage);
  await page.addInitScript(kit.script);

  return {
    refused,
    async settle(ms) {
      const until = Date.now() + ms;
      while (!detached && !settled(instances.values(), mainInstance, lastMessageAt)) {
        const left = until - Date.now();
        if (left <= 0) return;
        await Promise.race([
          new Promise<void>((resolve) => {
            changed = resolve;
          }),
          pause(Math.min(left, 100)),
        ]);
      }
    },
    detach() {
      detached = true;
      instances.clear();
      changed();
    },
  };
}
