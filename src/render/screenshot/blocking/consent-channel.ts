/**
 * The channel between autoconsent and us, out of the page's reach. Its content script runs in
 * an isolated world of every frame (as in a browser extension: the page's scripts cannot see
 * or call into it) and talks to us through a CDP binding that exists in that world only.
 *
 * Why not Playwright's `exposeBinding`: that binding lives in the page's own world, so a page can
 * call it too, and every call costs us a round trip to hand back its result. A page calling it
 * 100,000 times in a loop kept our event loop busy for 69 s (stalls up to 0.8 s) where the same
 * number of console.log calls cost 8 s (measured): a denial of service on every other request.
 */
import type { CDPSession, Page } from 'playwright-core';

/** The isolated world autoconsent runs in, and the binding only that world has. */
const WORLD = 'cardshot-consent';
const BINDING = 'cardshotConsentMessage';

/** Frames whose worlds are tracked; a page that makes more gets no consent handling in them. */
const MAX_FRAMES = 100;
/** Largest message we read from the content script (its reports are ~1 KB). */
const MAX_MESSAGE_BYTES = 64 * 1024;
/** Longest one of the package's snippets may run in the page's world. */
const SNIPPET_MS = 1000;

/**
 * Runs first in the isolated world: hands autoconsent its `autoconsentSendMessage` (the binding,
 * with where the message comes from, read in that world where the page cannot fake it).
 */
const PREAMBLE = `(() => {
  const send = globalThis.${BINDING};
  globalThis.autoconsentSendMessage = (message) => {
    try { send(JSON.stringify({ message, top: window.top === window, url: location.href })); } catch {}
    return Promise.resolve();
  };
})();\n`;

/** Delivers a message (as JSON text: parsing it in the page is far cheaper than CDP's own encoding). */
const RECEIVE = 'function (json) { globalThis.autoconsentReceiveMessage?.(JSON.parse(json)); }';

/** A message from autoconsent, with the frame it came from. */
export interface ConsentMessage {
  message: unknown;
  /** True for the page's top document. */
  top: boolean;
  url: string;
}

export interface ConsentChannel {
  /** Sends a message to the autoconsent of the world `contextId`. */
  send(contextId: number, message: unknown): void;
  /** Runs `expression` in the page's own world of the frame of `contextId`: true when it returned true. */
  evaluateInPage(contextId: number, expression: string): Promise<boolean>;
  close(): Promise<void>;
}

/** Which execution context belongs to which frame and world, within bounds. */
function trackContexts(cdp: CDPSession) {
  const contexts = new Map<number, { frameId: string; isolated: boolean }>();
  const pageWorldOf = new Map<string, number>();
  cdp.on('Runtime.executionContextCreated', ({ context }) => {
    const aux = context.auxData as { frameId?: string; isDefault?: boolean } | undefined;
    if (!aux?.frameId || contexts.size >= 2 * MAX_FRAMES) return;
    if (aux.isDefault) {
      contexts.set(context.id, { frameId: aux.frameId, isolated: false });
      pageWorldOf.set(aux.frameId, context.id);
    } else if (context.name === WORLD) {
      contexts.set(context.id, { frameId: aux.frameId, isolated: true });
    }
  });
  cdp.on('Runtime.executionContextDestroyed', ({ executionContextId }) => {
    const known = contexts.get(executionContextId);
    contexts.delete(executionContextId);
    if (known && !known.isolated && pageWorldOf.get(known.frameId) === executionContextId) {
      pageWorldOf.delete(known.frameId);
    }
  });
  cdp.on('Runtime.executionContextsCleared', () => {
    contexts.clear();
    pageWorldOf.clear();
  });
  return {
    isOurs: (id: number) => contexts.get(id)?.isolated === true,
    pageWorldBeside(id: number) {
      const known = contexts.get(id);
      return known?.isolated ? pageWorldOf.get(known.frameId) : undefined;
    },
    clear() {
      contexts.clear();
      pageWorldOf.clear();
    },
  };
}

/**
 * Adds autoconsent's content script to every new document of `page` (in the isolated world) and
 * calls `onMessage` with what it sends. Must be opened before the page navigates.
 */
export async function openConsentChannel(
  page: Page,
  script: string,
  onMessage: (contextId: number, msg: ConsentMessage) => void,
): Promise<ConsentChannel> {
  const cdp = await page.context().newCDPSession(page);
  const worlds = trackContexts(cdp);
  cdp.on('Runtime.bindingCalled', ({ name, payload, executionContextId }) => {
    // Only our world has the binding; the check is for a context that went away meanwhile.
    if (name !== BINDING || payload.length > MAX_MESSAGE_BYTES || !worlds.isOurs(executionContextId)) return;
    let parsed: ConsentMessage;
    try {
      parsed = JSON.parse(payload) as ConsentMessage;
    } catch {
      return;
    }
    onMessage(executionContextId, parsed);
  });
  let identifier: string | undefined;
  try {
    // Both domains: without them Chromium neither creates the named world nor reports its calls.
    await Promise.all([cdp.send('Page.enable'), cdp.send('Runtime.enable')]);
    await cdp.send('Runtime.addBinding', { name: BINDING, executionContextName: WORLD });
    ({ identifier } = await cdp.send('Page.addScriptToEvaluateOnNewDocument', {
      source: PREAMBLE + script,
      worldName: WORLD,
    }));
  } catch (err) {
    await cdp.detach().catch(() => {});
    throw err;
  }
  return {
    send(contextId, message) {
      cdp
        .send('Runtime.callFunctionOn', {
          functionDeclaration: RECEIVE,
          executionContextId: contextId,
          arguments: [{ value: JSON.stringify(message) }],
        })
        .catch(() => {});
    },
    async evaluateInPage(contextId, expression) {
      const pageWorld = worlds.pageWorldBeside(contextId);
      if (pageWorld === undefined) return false;
      const res = await cdp
        .send('Runtime.evaluate', {
          expression,
          contextId: pageWorld,
          returnByValue: true,
          timeout: SNIPPET_MS,
        })
        .catch(() => undefined);
      return res?.result.value === true;
    },
    async close() {
      worlds.clear();
      await cdp.send('Runtime.removeBinding', { name: BINDING }).catch(() => {});
      if (identifier)
        await cdp.send('Page.removeScriptToEvaluateOnNewDocument', { identifier }).catch(() => {});
      await cdp.detach().catch(() => {});
    },
  };
}
