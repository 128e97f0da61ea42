/**
 * The browser pool: a supervised Chromium, a fresh BrowserContext (with its own page and egress
 * proxy session) for every capture, a few such contexts created ahead of demand (see spares.ts),
 * and the memory guard watching the captures in progress.
 */
import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import type { BrowserContext } from 'playwright-core';
import { firstLine } from '../../../../lib/first-line.js';
import { withTimeout } from '../../../../lib/timeout.js';
import type { EgressProxy, EgressSession } from '../../../../net/proxy.js';
import type { Viewport } from '../../viewports.js';
import type { SandboxSetting } from './browser.js';
import { createCpuGuard } from './cpu-guard.js';
import { createChromiumLauncher } from './launcher.js';
import { type BrowserInstance, type Lease, type LeaseImpl, openLease } from './lease.js';
import { createMemoryGuard } from './memory-guard.js';
import { listProcesses, type ProcessInfo } from './processes.js';
import { createSpares, spareKey } from './spares.js';
import { createSupervisor } from './supervisor.js';

const CLOSE_TIMEOUT_MS = 5_000;

export interface BrowserPoolOptions {
  executablePath: string;
  /** CARDSHOT_CHROMIUM_SANDBOX: `auto` falls back to no sandbox, with a warning, if it cannot start. */
  sandbox: SandboxSetting;
  /** CARDSHOT_CHROMIUM_USER: who Chromium runs as when the service is root. */
  chromiumUser: string;
  proxy: EgressProxy;
  /** Contexts kept ready; 0 creates each one on demand. */
  spareContexts: number;
  /** Captures after which the browser is replaced. */
  recycleAfter: number;
  /** Spares are made for this viewport until requests name others. */
  defaultViewport: Viewport;
  /** Resident bytes a page's renderer may hold while it is captured; 0: no limit. */
  maxPageMemoryBytes: number;
  /** Resident bytes the browser's own processes may hold while captures run; 0: no limit. */
  maxBrowserMemoryBytes?: number;
  /** Percent of a core past which a page's renderer yields the CPU (cpu-guard.ts); 0: never. */
  busyPageCpuPercent?: number;
  log: Logger;
}

export interface PoolStatus {
  pid: number | undefined;
  generation: number;
  /** Captures handed out by the current browser. */
  jobs: number;
  spares: number;
  launches: number;
  crashes: number;
  /** Pages whose renderer was lowered to a low CPU priority (nice 10) for keeping a core busy. */
  busyPagesLowered: number;
  /** True while a browser is running and connected. */
  up: boolean;
  /** Why the last launch failed, until a launch succeeds (health checks). */
  launchError: string | undefined;
  /** Whether the running browser has Chromium's sandbox; undefined while none runs. */
  sandbox: boolean | undefined;
  /** Why it runs without its sandbox when it should have one (a security warning). */
  sandboxWarning: string | undefined;
  /** The user the running browser runs as, when not the service's own. */
  runsAs: string | undefined;
}

export interface BrowserPool {
  /** The Chromium executable this pool launches. */
  readonly executablePath: string;
  /** False when the configured Chromium executable does not exist (screenshots answer 503). */
  available(): boolean;
  /** A fresh context for `viewport`; launches the browser on first use. */
  acquire(viewport: Viewport): Promise<Lease>;
  /** Starts the browser and fills the spares now instead of on the first request. */
  warm(): Promise<void>;
  status(): PoolStatus;
  /** Live processes of every browser this pool runs (for tests and health checks). */
  processes(): ProcessInfo[];
  /** Closes spares, waits briefly for leases, closes every browser and kills leftovers. */
  close(): Promise<void>;
}

/** Creates the pool; nothing is launched until `acquire` or `warm`. */
export function createBrowserPool(opts: BrowserPoolOptions): BrowserPool {
  const log = opts.log.child({ module: 'browser' });
  const launcher = createChromiumLauncher({ ...opts, log });
  const spares = createSpares<BrowserInstance, LeaseImpl>(opts.spareContexts);
  const supervisor = createSupervisor({
    launch: () => launcher.launch(),
    recycleAfter: opts.recycleAfter,
    respawn: () => pool.warm().catch(() => {}),
    onDropped: (instance) => {
      for (const lease of spares.dropFor(instance)) lease.release();
    },
    log,
  });
  const cpu = createCpuGuard({ sharePercent: opts.busyPageCpuPercent ?? 0, log });
  const memory = createMemoryGuard({
    groups: () => supervisor.instances().flatMap((i) => (i.pid === undefined ? [] : [i.pid])),
    limitBytes: opts.maxPageMemoryBytes,
    browserLimitBytes: opts.maxBrowserMemoryBytes ?? 0,
    log,
    ...((opts.busyPageCpuPercent ?? 0) > 0 ? { onLook: cpu.look } : {}),
  });

  async function createLease(instance: BrowserInstance, viewport: Viewport, launchMs: number) {
    supervisor.hold(instance);
    try {
      return await openLease(instance, viewport, launchMs, {
        proxy: opts.proxy,
        close: closeContext,
        afterRelease: (lease) => {
          if (lease.refill) topUp(viewport);
        },
      });
    } catch (err) {
      supervisor.unhold(instance);
      throw err;
    }
  }

  async function closeContext(instance: BrowserInstance, context: BrowserContext, egress?: EgressSession) {
    // The capture is over: nothing its page still asks for goes out, not even a navigation a
    // closing page starts once the capture's interceptions are gone.
    egress?.seal();
    try {
      if (!instance.lost) await withTimeout(context.close(), CLOSE_TIMEOUT_MS);
    } catch (err) {
      // The browser is being closed under it (shutdown, recycling): nothing is wrong.
      if (supervisor.closed || instance.closing) {
        log.debug(
          { err: firstLine(err), generation: instance.generation },
          'context closed with its browser',
        );
        return;
      }
      // A context that will not close means a wedged browser: replace it.
      log.warn({ err: firstLine(err), generation: instance.generation }, 'context close failed');
      supervisor.retire(instance);
    } finally {
      await egress?.close().catch(() => {});
      supervisor.unhold(instance);
    }
  }

  /** Whether a spare made in `instance` can still be used. */
  const usable = (instance: BrowserInstance) =>
    !supervisor.closed && instance === supervisor.current && !instance.retiring && !instance.lost;

  /**
   * Fills the spares for `viewport`, one at a time (two contexts created at once would compete
   * with the capture in progress for the CPU), evicting spares of other viewports for room.
   */
  function topUp(viewport: Viewport): void {
    if (supervisor.closed) return;
    const instance = supervisor.current;
    if (!instance) {
      supervisor.replaceRecycled();
      return;
    }
    if (instance.retiring || instance.lost) return;
    const key = spareKey(viewport);
    const reserved = spares.reserve(key);
    if (!reserved) return;
    if (reserved.evicted) {
      // Evicted for good: refilling its own viewport in turn would evict this one's, and the
      // two would trade places for ever, making and closing contexts (found: /readyz showed 0
      // spares and every mobile request made its own context).
      reserved.evicted.refill = false;
      reserved.evicted.release();
    }
    createLease(instance, viewport, 0)
      .then((lease) => {
        spares.settle(key);
        if (!usable(instance)) return lease.release();
        spares.add(key, instance, lease);
        topUp(viewport);
      })
      .catch((err) => {
        spares.settle(key);
        // A spare still being made when the browser closes (shutdown, recycling) fails by design.
        if (supervisor.closed || instance.closing || instance.retiring) {
          log.debug({ err: firstLine(err) }, 'spare context dropped with its browser');
        } else {
          log.warn({ err: firstLine(err) }, 'spare context failed');
        }
      });
  }

  const pool: BrowserPool = {
    executablePath: opts.executablePath,
    available() {
      return existsSync(opts.executablePath);
    },

    async acquire(viewport) {
      const { instance, launchMs } = await supervisor.forWork();
      const spare = spares.take(spareKey(viewport), instance);
      const lease = spare ?? (await createLease(instance, viewport, launchMs));
      // A spare's set-up happened before this request: only the launch (if any) was waited for.
      if (spare) lease.timings = { launch: launchMs, context: 0 };
      lease.onRelease = memory.watch();
      supervisor.countJob(instance);
      return lease;
    },

    async warm() {
      await supervisor.forWork();
      topUp(opts.defaultViewport);
    },

    status() {
      const current = supervisor.current;
      return {
        pid: current?.pid,
        generation: current?.generation ?? 0,
        jobs: current?.jobs ?? 0,
        spares: spares.size,
        ...supervisor.stats(),
        busyPagesLowered: cpu.lowered,
        up: current !== undefined && !current.lost,
        sandbox: current?.sandbox,
        sandboxWarning: current && !current.sandbox ? launcher.sandboxWarning : undefined,
        runsAs: current?.runsAs,
      };
    },

    processes() {
      const groups = new Set(supervisor.instances().flatMap((i) => (i.pid === undefined ? [] : [i.pid])));
      return groups.size === 0 ? [] : listProcesses().filter((p) => groups.has(p.pgid) && p.state !== 'Z');
    },

    async close() {
      memory.close();
      for (const lease of spares.drain()) lease.release();
      await supervisor.close();
      await launcher.close();
    },
  };
  return pool;
}
