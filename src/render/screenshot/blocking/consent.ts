/**
 * Refusing consent pop-ups with DuckDuckGo's autoconsent: its content script (shipped in the
 * package) runs in every frame of the page, in a world of its own (consent-channel.ts), finds the
 * consent manager by the package's rules and clicks its "reject" path. We answer its messages
 * with the rules, and run the package's own snippets in the page's world when a rule asks for one
 * (a consent manager's script API, such as `Cookiebot.withdraw()`).
 *
 * Only autoconsent can send us messages, and it only acts on the page's DOM; still nothing a
 * message says is run (snippets are looked up by id in the package), and a page's documents get
 * bounded numbers of answers, rule sets and snippet runs.
 */
import type { Page } from 'playwright-core';
import { pause } from '../../../lib/timeout.js';
import { type ConsentChannel, type ConsentMessage, openConsentChannel } from './consent-channel.js';

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

/**
 * Messages read per page, and snippet runs among them (each a round trip to the page). A page
 * with a consent manager makes autoconsent send ~20-40 messages and a few snippet requests; a
 * page that keeps it busy (frames without end) gets no more answers past these.
 */
const MAX_MESSAGES = 200;
const MAX_SNIPPETS = 50;
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
  /** Takes the binding and the content script off the page, and drops its state. */
  detach(): Promise<void>;
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

/**
 * The expression that runs the package's snippet `id` in the page's world, or undefined for an
 * id the package does not have: code sent in a message is never run, only the package's own.
 */
export function snippetExpression(snippets: ConsentKit['snippets'], id: unknown): string | undefined {
  if (typeof id !== 'string' || !Object.hasOwn(snippets, id)) return undefined;
  const snippet = snippets[id];
  if (typeof snippet !== 'function') return undefined;
  // A snippet that throws (the page has no such consent manager) means "no".
  return `(() => { try { return !!(${snippet.toString()})(); } catch { return false; } })()`;
}

/** Starts refusing consent pop-ups in `page` (before it navigates). */
export async function refuseConsent(page: Page, kit: ConsentKit): Promise<ConsentRefusal> {
  const instances = new Map<string, InstanceState>();
  let mainInstance: InstanceState | undefined;
  const refused: string[] = [];
  let answered = 0;
  let inits = 0;
  let snippets = 0;
  let lastMessageAt = 0;
  let detached = false;
  let changed: () => void = () => {};

  const report = (msg: Message, top: boolean) => {
    if (typeof msg.instanceId !== 'string' || typeof msg.state !== 'object' || msg.state === null) return;
    const state = msg.state as { lifecycle?: unknown; findCmpAttempts?: unknown };
    const known = instances.get(msg.instanceId);
    if (!known && instances.size >= MAX_INSTANCES) return;
    const lifecycle = String(state.lifecycle);
    const attempts = Number(state.findCmpAttempts) || 0;
    const same = known?.lifecycle === lifecycle && known.attempts === attempts;
    const next: InstanceState = {
      mainFrame: top,
      lifecycle,
      attempts,
      since: same ? known.since : Date.now(),
    };
    instances.set(msg.instanceId, next);
    if (top) mainInstance = next;
  };

  const runSnippet = async (contextId: number, msg: Message) => {
    const expression = snippetExpression(kit.snippets, msg.snippetId);
    const result = expression ? await channel.evaluateInPage(contextId, expression) : false;
    channel.send(contextId, { type: 'evalResp', id: String(msg.id), result });
  };

  const onMessage = (contextId: number, { message, top, url }: ConsentMessage) => {
    const msg = message as Message;
    if (detached || typeof msg !== 'object' || msg === null || ++answered > MAX_MESSAGES) return;
    switch (msg.type) {
      case 'init':
        // One per document.
        if (++inits <= MAX_INSTANCES) {
          channel.send(contextId, {
            type: 'initResp',
            config: CONFIG,
            rules: kit.rulesFor(String(url), top === true),
          });
        }
        break;
      case 'eval':
        if (++snippets <= MAX_SNIPPETS) void runSnippet(contextId, msg);
        break;
      case 'autoconsentDone':
        if (refused.length < 10) refused.push(String((msg as { cmp?: unknown }).cmp).slice(0, 100));
        break;
      case 'report':
        report(msg, top === true);
        break;
    }
    lastMessageAt = Date.now();
    changed();
  };

  // Messages only come once the page navigates, after this returns.
  const channel: ConsentChannel = await openConsentChannel(page, kit.script, onMessage);

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
    async detach() {
      detached = true;
      instances.clear();
      changed();
      await channel.close();
    },
  };
}
