/**
 * Starting Chromium and preparing one browser context for one capture. The pool (pool.ts)
 * decides when; this file knows how, with the flags and context options that keep a page off
 * the network except through the egress proxy (each flag verified on Debian's Chromium 156).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, type CDPSession, chromium, type Page } from 'playwright-core';
import { settings } from '../../config/schema.js';
import { firstLine } from '../../lib/first-line.js';
import type { EgressProxy, EgressSession } from '../../net/proxy.js';
import { findProcessByArgument } from './processes.js';
import { userAgentFor, type Viewport } from './viewports.js';

/**
 * Chromium resolves no names itself (the proxy does; 127.0.0.1 is excluded so it can reach
 * the proxy), WebRTC sends nothing outside the proxy, no QUIC, no background traffic. The JS
 * heap cap turns a page that allocates without end into a crashed tab, not a starved machine.
 * `--no-sandbox` is not here: Playwright adds it unless `chromiumSandbox` is set (see below).
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
  defaultPath = String(settings.chromiumPath.default),
  fallback = FULL_CHROMIUM_PATH,
): { path: string; fellBack: boolean } {
  if (configured === defaultPath && !existsSync(configured) && existsSync(fallback)) {
    return { path: fallback, fellBack: true };
  }
  return { path: configured, fellBack: false };
}

export type SandboxSetting = 'auto' | 'on' | 'off';

/**
 * Whether to start Chromium with its own sandbox (renderers in their own user, PID and network
 * namespaces with a seccomp filter), from CARDSHOT_CHROMIUM_SANDBOX and the user the service
 * runs as. Chromium refuses to start sandboxed as root, so `auto` turns it on for every other
 * user; `on` as root is a configuration error the launch reports.
 */
export function sandboxWanted(setting: SandboxSetting, uid = process.getuid?.()): boolean {
  if (setting === 'off') return false;
  if (setting === 'on') return true;
  return uid !== 0;
}

/**
 * Starts something Chromium-backed the way the service does: with the sandbox when wanted (and
 * not `skipSandbox`), and under `auto`, if that fails, once more without it. A kernel without
 * unprivileged user namespaces (some container runtimes) stops the sandbox from starting; `auto`
 * then runs without it rather than not at all, `on` lets the failure stand. `sandboxError` is
 * the first line of why it fell back, for the caller to report.
 */
export async function startWithSandboxFallback<T>(
  setting: SandboxSetting,
  start: (sandbox: boolean) => Promise<T>,
  opts: { skipSandbox?: boolean } = {},
): Promise<{ value: T; sandbox: boolean; sandboxError?: string }> {
  const sandbox = sandboxWanted(setting) && !opts.skipSandbox;
  try {
    return { value: await start(sandbox), sandbox };
  } catch (err) {
    if (!sandbox || setting === 'on') throw err;
    const value = await start(false);
    return { value, sandbox: false, sandboxError: firstLine(err) };
  }
}

/** Why `on` cannot work as root, as the launch error says it. */
export const SANDBOX_AS_ROOT =
  "CARDSHOT_CHROMIUM_SANDBOX=on, but the service runs as root and Chromium's sandbox cannot start as root; run as an unprivileged user or set it to auto";

export interface LaunchedBrowser {
  browser: Browser;
  version: string;
  /** The browser's pid, which is also its process group id; undefined if /proc is unreadable. */
  pid: number | undefined;
  /** True when Chromium runs with its own sandbox. */
  sandbox: boolean;
}

/**
 * Starts Chromium with every request sent to `proxyServer`. Playwright adds
 * `--proxy-bypass-list=<-loopback>` itself, without which Chromium would go direct to loopback
 * and link-local addresses. The browser-wide proxy stays although every context has its own:
 * Chromium's background traffic ignores per-context proxies.
 */
export async function launchBrowser(
  executablePath: string,
  proxyServer: string,
  sandbox: boolean,
): Promise<LaunchedBrowser> {
  // A unique, harmless switch: how the browser's pid is found in /proc afterwards.
  const marker = `--cardshot-browser=${randomBytes(8).toString('hex')}`;
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    chromiumSandbox: sandbox,
    proxy: { server: proxyServer },
    args: [...CHROMIUM_FLAGS, marker],
    timeout: LAUNCH_TIMEOUT_MS,
    // Shutdown is ours (modules close in order); Playwright must not kill it on a signal first.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
  return { browser, version: browser.version(), pid: findProcessByArgument(marker), sandbox };
}

/** A context ready for one capture: its page, a CDP session on it, and its own proxy session. */
export interface CaptureContext {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  egress: EgressSession;
  /** True once the page's renderer process crashed. */
  pageCrashed(): boolean;
  /** Rejects when the page goes (its renderer crashed, or it was closed): ends waits on it at once. */
  gone: Promise<never>;
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
    context = await browser.browser.newContext({
      viewport: { width: viewport.width, height: viewport.height },
      screen: { width: viewport.width, height: viewport.height },
      deviceScaleFactor: viewport.scale,
      isMobile: viewport.mobile,
      hasTouch: viewport.mobile,
      userAgent: userAgentFor(viewport, browser.version),
      locale: 'en-US',
      proxy: { server: egress.server },
      // register() still resolves, but the worker never fetches.
      serviceWorkers: 'block',
      acceptDownloads: false,
    });
    // Playwright's networkidle never comes for a page that starts a SharedWorker (plain
    // playwright-core too: the request stays in flight for ever), so such a page always waited
    // out the whole deadline. Like service workers, shared workers are not offered; pages test
    // for them, as browsers without them exist.
    await context.addInitScript('delete window.SharedWorker;');
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    let crashed = false;
    let markGone!: (err: Error) => void;
    const gone = new Promise<never>((_, reject) => {
      markGone = reject;
    });
    gone.catch(() => {});
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
    return { context, page, cdp, egress, pageCrashed: () => crashed, gone };
  } catch (err) {
    await context?.close().catch(() => {});
    await egress.close();
    throw err;
  }
}
