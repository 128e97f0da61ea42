/**
 * Starting Chromium and preparing one browser context for one capture. The pool (pool.ts)
 * decides when; this file knows how, with the flags and context options that keep a page off
 * the network except through the egress proxy (each flag verified on Debian's Chromium 156).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import type { EgressProxy, EgressSession } from '../../../../net/proxy.js';
import { packageRoot } from '../../../../version.js';
import { screenshotSettings } from '../../settings.js';
import { userAgentFor, type Viewport } from '../../viewports.js';
import { DEFAULT_LOCALE, emulateLocale } from '../page/emulate.js';
import {
  MAX_CONSOLE_CHARS,
  MAX_CONSOLE_MESSAGES,
  PAGE_INIT_SCRIPT,
  SILENCE_CONSOLE,
} from '../page/page-console.js';
import { type ChromiumUser, lookupUser } from './chromium-user.js';
import { findProcessByArgument } from './processes.js';

/**
 * Chromium resolves no names itself (the proxy does; 127.0.0.1 is excluded so it can reach
 * the proxy), WebRTC sends nothing outside the proxy, no QUIC, no background traffic. The JS
 * heap cap turns a page that allocates without end into a crashed tab, not a starved machine.
 * `--no-sandbox` is not here: Playwright adds it unless `chromiumSandbox` is set (see chromiumRunner).
 */
export const CHROMIUM_FLAGS = [
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  // The same policy for the headless shell, which reads only this older name (and ignores the one
  // above, which Debian's full browser reads instead): without it, a page's STUN and TURN
  // requests went out over UDP to any address, past the proxy (measured with a UDP canary).
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--disable-quic',
  '--js-flags=--max-old-space-size=512',
];

const LAUNCH_TIMEOUT_MS = 30_000;

/** Debian's full browser: the fallback when the default headless shell is not installed. */
export const FULL_CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * The browser to run for `configured` (CARDSHOT_CHROMIUM_PATH). Left at its default, a machine
 * set up before Cardshot moved to the headless shell (and not by root since, so set-up could not
 * add it) still has only Debian's full browser: that one is used, slower, rather than answering
 * 503. A path the operator chose is taken as it is.
 */
export function chromiumExecutable(
  configured: string,
  defaultPath = String(screenshotSettings.chromiumPath.default),
  fallback = FULL_CHROMIUM_PATH,
): { path: string; fellBack: boolean } {
  if (configured === defaultPath && !existsSync(configured) && existsSync(fallback)) {
    return { path: fallback, fellBack: true };
  }
  return { path: configured, fellBack: false };
}

export type SandboxSetting = 'auto' | 'on' | 'off';

export { type ChromiumUser, lookupUser } from './chromium-user.js';

/**
 * Run by Playwright in place of Chromium when the service is root: hands the profile directory to
 * the user and execs Chromium as that user via setpriv, keeping pid, process group and pipes.
 */
export const AS_USER_WRAPPER = path.join(packageRoot(), 'scripts', 'chromium-as-user.sh');
const SETPRIV = '/usr/bin/setpriv';

/** How Chromium is started on this machine: as whom, and whether its sandbox is tried. */
export interface ChromiumRunner {
  /** The user Chromium runs as (the service is root); undefined: the service's own user. */
  asUser: ChromiumUser | undefined;
  /** Whether the sandbox is tried first (under `auto` a failed start falls back without it). */
  sandbox: boolean;
  /** Why Chromium runs without its sandbox from the start: a warning for the log, /readyz and doctor. */
  warning?: string;
  /** Set when `on` cannot be met: the launch fails with this. */
  error?: string;
}

/**
 * Chromium refuses its sandbox as root, so a root service runs it as `userName` (created by
 * `npm start`/scripts/setup.mjs as root) with the sandbox on; any other user runs it itself,
 * sandbox on. Without that user (or setpriv), `auto` runs it as root without the sandbox and
 * says so loudly, `on` refuses, `off` never tries.
 */
export function chromiumRunner(
  setting: SandboxSetting,
  userName: string,
  opts: { uid?: number | undefined; passwd?: string } = {},
): ChromiumRunner {
  const uid = 'uid' in opts ? opts.uid : process.getuid?.();
  const sandbox = setting !== 'off';
  if (uid !== 0) return { asUser: undefined, sandbox };
  const user = lookupUser(userName, opts.passwd);
  const missing = !user
    ? `the user ${userName} (CARDSHOT_CHROMIUM_USER) does not exist`
    : !existsSync(SETPRIV)
      ? `${SETPRIV} (util-linux) is missing`
      : !existsSync(AS_USER_WRAPPER)
        ? `${AS_USER_WRAPPER} is missing`
        : undefined;
  if (!missing) return { asUser: user, sandbox };
  const fix = 'run `npm run setup` as root to create it';
  if (setting === 'on') {
    return {
      asUser: undefined,
      sandbox: false,
      error: `CARDSHOT_CHROMIUM_SANDBOX=on, but the service runs as root and ${missing}; ${fix}`,
    };
  }
  return {
    asUser: undefined,
    sandbox: false,
    warning: `Chromium runs as root WITHOUT its sandbox: ${missing}; ${fix}`,
  };
}

/**
 * Chromium's whole environment: nothing of the service's (no CARDSHOT_* setting, DATABASE_URL or
 * REDIS_URL reaches a process that renders hostile pages), only what it needs to find its
 * libraries, fonts, locale and caches.
 */
export function chromiumEnv(asUser: ChromiumUser | undefined, from: NodeJS.ProcessEnv = process.env) {
  const env: Record<string, string> = {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: asUser ? asUser.home : from.HOME || '/tmp',
  };
  for (const name of ['LANG', 'LC_ALL', 'LANGUAGE', 'TZ', 'FONTCONFIG_FILE', 'FONTCONFIG_PATH']) {
    const value = from[name];
    if (value) env[name] = value;
  }
  if (!asUser && from.TMPDIR) env.TMPDIR = from.TMPDIR;
  return env;
}

/** The part of Playwright's launch options that says what runs, as whom, with what environment. */
export function chromiumProcess(executablePath: string, sandbox: boolean, asUser: ChromiumUser | undefined) {
  const env = chromiumEnv(asUser);
  if (!asUser) return { executablePath, chromiumSandbox: sandbox, env };
  return {
    executablePath: AS_USER_WRAPPER,
    chromiumSandbox: sandbox,
    // Read and removed by the wrapper before it execs Chromium.
    env: {
      ...env,
      CARDSHOT_CHROMIUM_EXEC: executablePath,
      CARDSHOT_CHROMIUM_UID: String(asUser.uid),
      CARDSHOT_CHROMIUM_GID: String(asUser.gid),
    },
  };
}

export interface LaunchedBrowser {
  browser: Browser;
  version: string;
  /** The browser's pid, which is also its process group id; undefined if /proc is unreadable. */
  pid: number | undefined;
  /** True when Chromium runs with its own sandbox. */
  sandbox: boolean;
  /** The user Chromium runs as when not the service's own (the service is root). */
  runsAs: string | undefined;
}

/**
 * Starts Chromium with every request sent to `proxyServer`. Playwright adds
 * `--proxy-bypass-list=<-loopback>` itself, without which Chromium would go direct to loopback
 * and link-local addresses. The browser-wide proxy stays although every context has its own:
 * Chromium's background traffic ignores per-context proxies.
 */
export async function launchBrowser(
  executablePath: string,
  proxyServer: string | { server: string; username: string; password: string },
  sandbox: boolean,
  asUser?: ChromiumUser,
): Promise<LaunchedBrowser> {
  // A unique, harmless switch: how the browser's pid is found in /proc afterwards.
  const marker = `--cardshot-browser=${randomBytes(8).toString('hex')}`;
  // Loaded at the first launch, not at start: importing Playwright takes 0.49 s (measured), over
  // half of the screenshot area's import, which the server paid before it listened.
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    ...chromiumProcess(executablePath, sandbox, asUser),
    headless: true,
    proxy: typeof proxyServer === 'string' ? { server: proxyServer } : proxyServer,
    args: [...CHROMIUM_FLAGS, marker],
    // Playwright turns off Chromium's own bound on a page's navigations and history changes (200
    // in 10 s, then refused in the page): a flood of them then reaches the browser process every
    // capture shares. Left on, as in every user's Chrome.
    ignoreDefaultArgs: ['--disable-ipc-flooding-protection'],
    timeout: LAUNCH_TIMEOUT_MS,
    // Shutdown is ours (modules close in order); Playwright must not kill it on a signal first.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
  return {
    browser,
    version: browser.version(),
    pid: findProcessByArgument(marker),
    sandbox,
    runsAs: asUser?.name,
  };
}

/** Why a page was closed before its capture ended: what it flooded. */
export type Flood = 'console' | 'navigations' | 'history';

/**
 * Main-frame navigations one capture's page may start. A redirect chain is at most 20 hops
 * (Chromium's limit) and a page moves itself a few times at most; a page that sets `location`
 * every few milliseconds replaces each move with the next before it gets anywhere, burns the
 * browser process all captures share, and held its capture to the deadline (2 cores: one such
 * page went from 0.3 s alone to 3 to 15 s beside three others).
 */
export const MAX_NAVIGATIONS = 50;

/**
 * Changes of the main frame's address within its document (`history.pushState`, `location.hash`)
 * one capture's page may make. Each crosses to the browser process and then the CDP pipe every
 * account shares: two pages making 50 per task made another account's plain capture time out and
 * got the browser restarted. A router makes a few; a scroll-spy page one per section it passes.
 * Below Chromium's own limit (200 in 10 s, see launchBrowser), so the page is closed before the
 * browser starts refusing its changes and the capture would wait out its deadline.
 */
export const MAX_HISTORY_CHANGES = 100;

/**
 * Ends a capture's page at once (a flood, a move off its site): its proxy session is sealed
 * first, because a page being closed can still start a request once nothing intercepts it, and
 * that request must not get out. Every wait of the capture gives way to the close.
 */
export function endPage(capture: { egress: EgressSession; page: Page }): void {
  capture.egress.seal();
  void capture.page.close().catch(() => {});
}

/** A context ready for one capture: its page, a CDP session on it, and its own proxy session. */
export interface CaptureContext {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  egress: EgressSession;
  /** The User-Agent the page sends and sees (the viewport's), for a locale that must send it again. */
  userAgent: string;
  /** True once the page's renderer process crashed. */
  pageCrashed(): boolean;
  /**
   * Set once the page was closed for flooding: more console messages from its workers, main-frame
   * navigations or changes of its address within the document than a capture allows.
   */
  flooded(): Flood | undefined;
  /** Rejects when the page goes (its renderer crashed, or it was closed): ends waits on it at once. */
  gone: Promise<never>;
}

/**
 * A name the URL guard refuses without asking DNS (an internal name), which no capture can name
 * (the same guard refuses it before a browser is involved): the fresh page's one request.
 */
export const WARM_UP_URL = 'http://spare.cardshot.internal/';

/**
 * Makes one request from the blank page through the context's proxy session, ahead of demand,
 * and answers the session's 407 challenge for it on our own CDP session. Chromium keeps the
 * credentials in the context's auth cache and from then on sends them with every request up front
 * (page, frames, workers, tunnels: one network context), so no later request is challenged.
 *
 * Why not Playwright's `proxy: { username, password }`: with proxy credentials Playwright pauses
 * every request of the context (CDP `Fetch`, pattern `*`) and continues it from Node, one round
 * trip through this process per sub-resource, to answer a challenge that comes once. Here only
 * this one request, matched by its exact URL, is paused. The proxy refuses the name with its own
 * empty answer; the refusal is left out of the capture's log (attempts.ts).
 *
 * Resolves true once the challenge was answered and the request came back through the proxy.
 */
async function warmEgress(cdp: CDPSession, egress: EgressSession): Promise<boolean> {
  let answered = false;
  const onPaused = (e: { requestId: string }) =>
    void cdp.send('Fetch.continueRequest', { requestId: e.requestId }).catch(() => {});
  const onAuth = (e: { requestId: string; authChallenge: { source?: string } }) => {
    // Only the proxy's challenge gets the session's credentials (the warm-up name has no server).
    const proxy = e.authChallenge.source === 'Proxy';
    answered ||= proxy;
    void cdp
      .send('Fetch.continueWithAuth', {
        requestId: e.requestId,
        authChallengeResponse: proxy
          ? { response: 'ProvideCredentials', username: egress.username, password: egress.password }
          : { response: 'CancelAuth' },
      })
      .catch(() => {});
  };
  cdp.on('Fetch.requestPaused', onPaused);
  cdp.on('Fetch.authRequired', onAuth);
  try {
    await cdp.send('Fetch.enable', {
      handleAuthRequests: true,
      patterns: [{ urlPattern: WARM_UP_URL, requestStage: 'Request' }],
    });
    const res = await cdp.send('Runtime.evaluate', {
      expression: `fetch(${JSON.stringify(WARM_UP_URL)}, { mode: 'no-cors', cache: 'no-store' }).then(() => true, () => false)`,
      awaitPromise: true,
      returnByValue: true,
    });
    return answered && res.result.value === true;
  } catch {
    return false;
  } finally {
    cdp.off('Fetch.requestPaused', onPaused);
    cdp.off('Fetch.authRequired', onAuth);
    await cdp.send('Fetch.disable').catch(() => {});
  }
}

/** Opens a fresh context for `viewport` whose every request goes through a new proxy session. */
export async function openCaptureContext(
  browser: LaunchedBrowser,
  viewport: Viewport,
  proxy: EgressProxy,
  label: string,
): Promise<CaptureContext> {
  const egress = await proxy.openSession(label);
  let context: BrowserContext | undefined;
  try {
    const userAgent = userAgentFor(viewport, browser.version);
    // No `locale` here: Playwright would hold Chromium's locale override on its own session, and
    // Chromium refuses a second one ("Another locale override is already in effect"), so the
    // `locale` option could not change Intl. Ours sets en-US below, on the session captures use.
    context = await browser.browser.newContext({
      viewport: { width: viewport.width, height: viewport.height },
      screen: { width: viewport.width, height: viewport.height },
      deviceScaleFactor: viewport.scale,
      isMobile: viewport.mobile,
      hasTouch: viewport.mobile,
      userAgent,
      // Its own listener; the proxy answers 407 to anything without the session's credentials,
      // which warmEgress gives Chromium below (not Playwright: it would pause every request).
      proxy: { server: egress.server },
      // register() still resolves, but the worker never fetches.
      serviceWorkers: 'block',
      acceptDownloads: false,
    });
    await context.addInitScript(PAGE_INIT_SCRIPT);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    // What Playwright's `locale: 'en-US'` gave every page (Accept-Language, navigator.language,
    // Intl), set ahead of demand on the spare's own session: a capture with `locale` changes it
    // there, a plain one pays nothing.
    await emulateLocale(cdp, userAgent, DEFAULT_LOCALE);
    // A context Chromium holds no proxy credentials for would have every request refused.
    if (!(await warmEgress(cdp, egress))) throw new Error('egress proxy session did not authenticate');
    let crashed = false;
    let markGone!: (err: Error) => void;
    const gone = new Promise<never>((_, reject) => {
      markGone = reject;
    });
    gone.catch(() => {});
    // Workers keep their console (the init script reaches documents only): past a bound, the
    // page is closed, ending the capture, instead of the flood crossing the pipe for 15 s.
    let messages = 0;
    let chars = 0;
    let navigations = 0;
    let addressChanges = 0;
    let flooded: Flood | undefined;
    const closeFor = (flood: Flood) => {
      flooded = flood;
      markGone(new Error(`page closed: ${flood} flood`));
      endPage({ egress, page });
    };
    page.on('console', (msg) => {
      chars += msg.text().length;
      if ((++messages <= MAX_CONSOLE_MESSAGES && chars <= MAX_CONSOLE_CHARS) || flooded) return;
      closeFor('console');
    });
    page.on('request', (req) => {
      if (flooded || !req.isNavigationRequest() || req.frame() !== page.mainFrame()) return;
      if (++navigations > MAX_NAVIGATIONS) closeFor('navigations');
    });
    // Every commit counts here, a new document's too: those are bounded far lower above.
    page.on('framenavigated', (frame) => {
      if (flooded || frame !== page.mainFrame()) return;
      if (++addressChanges > MAX_HISTORY_CHANGES) closeFor('history');
    });
    page.on('worker', (worker) => void worker.evaluate(SILENCE_CONSOLE).catch(() => {}));
    page.on('crash', () => {
      crashed = true;
      markGone(new Error('page crashed'));
    });
    page.on('close', () => markGone(new Error('page closed')));
    // Hostile pages: alerts and confirms never block, popups are closed as they open.
    page.on('dialog', (d) => void d.dismiss().catch(() => {}));
    context.on('page', (p) => {
      if (p !== page) void p.close().catch(() => {});
    });
    return {
      context,
      page,
      cdp,
      egress,
      userAgent,
      pageCrashed: () => crashed,
      flooded: () => flooded,
      gone,
    };
  } catch (err) {
    await context?.close().catch(() => {});
    await egress.close();
    throw err;
  }
}
