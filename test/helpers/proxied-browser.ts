import { createEgressProxy, type EgressProxy, type EgressSession } from '../../src/net/proxy.js';
import { createUrlGuard } from '../../src/net/url-guard.js';
import {
  type CaptureContext,
  type LaunchedBrowser,
  launchBrowser,
  openCaptureContext,
} from '../../src/render/screenshot/engine/browser/browser.js';
import type { Viewport } from '../../src/render/screenshot/viewports.js';
import { CHROMIUM } from './browser.js';

/**
 * The service's own browser set-up (its launch flags, the egress proxy with a session per
 * context, the context options of a capture), with a URL guard that resolves the given host
 * names to 127.0.0.1 and lets them through on `port`: pages load from real-looking hosts
 * (ad networks, a news site) that all live on one loopback fixture server.
 */
export interface ProxiedBrowser {
  launched: LaunchedBrowser;
  proxy: EgressProxy;
  /** A fresh context and page, as a capture leases them. */
  open(viewport?: Viewport): Promise<CaptureContext>;
  close(): Promise<void>;
}

export const DESKTOP: Viewport = { name: 'test', width: 800, height: 600, scale: 1, mobile: false };

/** Launches Chromium behind the proxy. */
export async function startProxiedBrowser(hosts: readonly string[], port: number): Promise<ProxiedBrowser> {
  const guard = createUrlGuard({
    allowPrivateHosts: hosts.map((h) => `${h}:${port}`),
    lookup: async () => [{ address: '127.0.0.1', family: 4 }],
  });
  const proxy = createEgressProxy({ guard });
  const background: EgressSession = await proxy.openSession('browser');
  const { server, username, password } = background;
  const launched = await launchBrowser(CHROMIUM, { server, username, password }, false);
  const open: Array<CaptureContext> = [];
  return {
    launched,
    proxy,
    async open(viewport = DESKTOP) {
      const ctx = await openCaptureContext(launched, viewport, proxy, 'test');
      open.push(ctx);
      return ctx;
    },
    async close() {
      for (const ctx of open) await ctx.context.close().catch(() => {});
      await launched.browser.close().catch(() => {});
      await proxy.close();
    },
  };
}

/** Closes one capture's context and its proxy session. */
export async function closeCapture(ctx: CaptureContext): Promise<void> {
  await ctx.context.close().catch(() => {});
  await ctx.egress.close();
}
