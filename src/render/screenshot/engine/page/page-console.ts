/**
 * Run in every document of a context (every frame, an about:blank iframe's included) before its
 * own scripts. Playwright enables the Runtime domain, so every console call crosses the one CDP
 * pipe with its arguments in full: a page logging 200 × 100 KB per task made other accounts'
 * captures time out and got the browser restarted (issue 26 §2). Nothing here reads console
 * messages, so the methods become no-ops the page cannot put back (non-writable,
 * non-configurable; a new frame gets the same treatment). A dedicated worker is silenced as
 * soon as it is seen (its first task has run by then), and bounded (MAX_CONSOLE_CHARS). Shared workers are not offered at all: Playwright's networkidle never comes
 * for a page that starts one (plain playwright-core too: the request stays in flight for ever),
 * so such a page always waited out the whole deadline; pages test for them, as browsers
 * without them exist.
 */
export const SILENCE_CONSOLE = `(() => {
  const c = globalThis.console;
  if (!c) return;
  const quiet = () => {};
  for (const name of Object.getOwnPropertyNames(c)) {
    if (typeof c[name] !== 'function') continue;
    try { Object.defineProperty(c, name, { value: quiet, writable: false, configurable: false }); } catch {}
  }
  try { Object.defineProperty(globalThis, 'console', { value: c, writable: false, configurable: false }); } catch {}
})();`;

/** What every document of a capture's context runs first (see SILENCE_CONSOLE). */
export const PAGE_INIT_SCRIPT = `delete window.SharedWorker;\n${SILENCE_CONSOLE}`;

/**
 * Console messages (and characters in them) one capture's page may send, from its workers: its
 * documents' console is silenced. Legitimate pages send tens of short lines; the flood of issue
 * 26 §2 sent 200 × 100 KB per task, and 500 of those took 5 s to cross the pipe here.
 */
export const MAX_CONSOLE_MESSAGES = 500;
export const MAX_CONSOLE_CHARS = 1_000_000;
