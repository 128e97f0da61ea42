/** One browser context, handed to one capture and closed after it. */
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import type { EgressProxy, EgressSession } from '../../../../net/proxy.js';
import type { Viewport } from '../../viewports.js';
import { type CaptureContext, type Flood, type LaunchedBrowser, openCaptureContext } from './browser.js';
import type { Instance } from './supervisor.js';

/** One context handed to one capture. */
export interface Lease {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly cdp: CDPSession;
  readonly egress: EgressSession;
  readonly viewport: Viewport;
  /** The User-Agent the page sends (the viewport's). */
  readonly userAgent: string;
  /** True once the browser behind this lease has disconnected (crash, kill). */
  readonly browserLost: boolean;
  /** True once the page's renderer process crashed. */
  readonly pageCrashed: boolean;
  /** Set once the page was closed for flooding (console messages, navigations, history changes). */
  readonly flooded: Flood | undefined;
  /** Rejects when the page crashes or is closed (a hang-up releasing the lease). */
  readonly gone: Promise<never>;
  /** Milliseconds spent starting a browser and creating the context for this request (0 for a spare). */
  readonly timings: { launch: number; context: number };
  /** Closes the context and its proxy session in the background; safe to call twice. */
  release(): void;
}

export interface LeaseImpl extends Lease {
  timings: { launch: number; context: number };
  /** Set when the lease is handed to a capture: ends what watched it (the memory guard). */
  onRelease?: () => void;
  /** False for a spare evicted to make room for another viewport's: its release refills nothing. */
  refill: boolean;
}

export type BrowserInstance = Instance<LaunchedBrowser>;

/**
 * Opens a context in `instance`. `close` closes it (in the background, on release) and
 * `afterRelease` runs once it is closed, with the lease's own `refill` flag.
 */
export async function openLease(
  instance: BrowserInstance,
  viewport: Viewport,
  launchMs: number,
  deps: {
    proxy: EgressProxy;
    close(instance: BrowserInstance, context: BrowserContext, egress: EgressSession): Promise<void>;
    afterRelease(lease: LeaseImpl): void;
  },
): Promise<LeaseImpl> {
  const started = performance.now();
  const prepared: CaptureContext = await openCaptureContext(
    instance,
    viewport,
    deps.proxy,
    `b${instance.generation}`,
  );
  const { context, page, cdp, egress, userAgent } = prepared;
  let released = false;
  const lease: LeaseImpl = {
    context,
    page,
    cdp,
    egress,
    viewport,
    userAgent,
    get browserLost() {
      return instance.lost;
    },
    get pageCrashed() {
      return prepared.pageCrashed();
    },
    get flooded() {
      return prepared.flooded();
    },
    gone: prepared.gone,
    timings: { launch: launchMs, context: performance.now() - started },
    release() {
      if (released) return;
      released = true;
      lease.onRelease?.();
      // The replacement spare is made after the capture, not during it: on a small machine
      // creating a context alongside a navigation doubled the navigation time (measured).
      void deps.close(instance, context, egress).then(() => deps.afterRelease(lease));
    },
    refill: true,
  };
  return lease;
}
