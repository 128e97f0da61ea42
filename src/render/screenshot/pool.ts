/**
 * The browser supervisor: one long-lived Chromium, a fresh BrowserContext (with its own page and
 * egress proxy session) for every capture, a few such contexts created ahead of demand, a
 * replacement browser after N captures or a crash, and no process left behind.
 *
 * Why spares: creating a context and page is the largest single cost of a warm capture (~200 ms
 * measured here, ~100 ms of it CPU in Chromium's browser process), so it is moved off the
 * request path. Isolation is unchanged: a context is handed to exactly one request and closed
 * after it.
 */
import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { AppError } from '../../errors.js';
import { firstLine } from '../../lib/first-line.js';
import type { EgressProxy, EgressSession } from '../../net/proxy.js';
import {
  type CaptureContext,
  chromiumRunner,
  type LaunchedBrowser,
  launchBrowser,
  openCaptureContext,
  type SandboxSetting,
  startWithSandboxFallback,
} from './browser.js';
import { createMemoryGuard } from './memory-guard.js';
import { killGroup, listProcesses, liveGroupMembers, type ProcessInfo } from './processes.js';
import type { Viewport } from './viewports.js';

const CLOSE_TIMEOUT_MS = 5_000;
/** A browser that failed to start is not tried again for this long (each try costs a process spawn). */
const LAUNCH_RETRY_MS = 5_000;

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
  log: Logger;
}

/** One context handed to one capture. */
export interface Lease {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly cdp: CDPSession;
  readonly egress: EgressSession;
  readonly viewport: Viewport;
  /** True once the browser behind this lease has disconnected (crash, kill). */
  readonly browserLost: boolean;
  /** True once the page's renderer process crashed. */
  readonly pageCrashed: boolean;
  /** Rejects when the page crashes or is closed (a hang-up releasing the lease). */
  readonly gone: Promise<never>;
  /** Milliseconds spent starting a browser and creating the context for this request (0 for a spare). */
  readonly timings: { launch: number; context: number };
  /** Closes the context and its proxy session in the background; safe to call twice. */
  release(): void;
}

export interface PoolStatus {
  pid: number | undefined;
  generation: number;
  /** Captures handed out by the current browser. */
  jobs: number;
  spares: number;
  launches: number;
  crashes: number;
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

interface Instance extends LaunchedBrowser {
  generation: number;
  jobs: number;
  /** Open contexts, spares included. */
  open: number;
  retiring: boolean;
  lost: boolean;
  closing: boolean;
}

interface Spare {
  key: string;
  instance: Instance;
  lease: LeaseImpl;
}

interface LeaseImpl extends Lease {
  timings: { launch: number; context: number };
  /** Set when the lease is handed to a capture: ends what watched it (the memory guard). */
  onRelease?: () => void;
  /** False for a spare evicted to make room for another viewport's: its release refills nothing. */
  refill: boolean;
}

/** Creates the pool; nothing is launched until `acquire` or `warm`. */
export function createBrowserPool(opts: BrowserPoolOptions): BrowserPool {
  const log = opts.log.child({ module: 'browser' });
  const instances = new Set<Instance>();
  let current: Instance | undefined;
  let launching: Promise<Instance> | undefined;
  let launchFailure: { at: number; error: AppError } | undefined;
  let background: EgressSession | undefined;
  let generation = 0;
  let launches = 0;
  let crashes = 0;
  let lastCrashAt = 0;
  let closed = false;
  const memory = createMemoryGuard({
    groups: () => [...instances].flatMap((i) => (i.pid === undefined ? [] : [i.pid])),
    limitBytes: opts.maxPageMemoryBytes,
    browserLimitBytes: opts.maxBrowserMemoryBytes ?? 0,
    log,
  });
  /**
   * A browser was retired after its quota of captures: its replacement is started as soon as its
   * captures in flight have ended (not alongside them, on a small machine), so the request after
   * a recycle finds a warm browser instead of paying a launch.
   */
  let replaceRetired = false;
  const spares: Spare[] = [];
  const pending = new Map<string, number>();
  /** Set once the sandbox failed to start under `auto`: later launches go straight without it. */
  let sandboxFailed = false;
  let sandboxFailure: string | undefined;
  /** Why the running browser has no sandbox when it should (status, /readyz). */
  let sandboxWarning: string | undefined;

  async function launch(): Promise<Instance> {
    if (!existsSync(opts.executablePath)) {
      throw new AppError(
        'unavailable',
        'Screenshots are not available on this server: Chromium is not installed',
        {
          detail: `no executable at ${opts.executablePath} (CARDSHOT_CHROMIUM_PATH)`,
        },
      );
    }
    // Looked up at every launch: `npm run setup` may have created the user since.
    const runner = chromiumRunner(opts.sandbox, opts.chromiumUser);
    if (runner.error) {
      throw new AppError(
        'unavailable',
        'Screenshots are not available on this server: Chromium cannot start',
        { detail: runner.error },
      );
    }
    if (runner.warning && runner.warning !== sandboxWarning) {
      log.error({ detail: runner.warning }, `SECURITY WARNING: ${runner.warning} (docs/security.md)`);
    }
    background ??= await opts.proxy.openSession('browser');
    const { server, username, password } = background;
    const proxyServer = { server, username, password };
    const { value: launched, sandboxError } = await startWithSandboxFallback(
      opts.sandbox,
      runner,
      (sandbox) => launchBrowser(opts.executablePath, proxyServer, sandbox, runner.asUser),
      { skipSandbox: sandboxFailed },
    );
    if (sandboxError) {
      // Said once: later launches go straight without it.
      sandboxFailed = true;
      sandboxFailure = sandboxError;
      log.error(
        { detail: sandboxError },
        "SECURITY WARNING: Chromium's sandbox could not start here; running without it (docs/security.md; CARDSHOT_CHROMIUM_SANDBOX=off skips the attempt)",
      );
    }
    sandboxWarning =
      runner.warning ?? (sandboxFailed ? `the sandbox could not start here (${sandboxFailure})` : undefined);
    const instance: Instance = {
      ...launched,
      generation: ++generation,
      jobs: 0,
      open: 0,
      retiring: false,
      lost: false,
      closing: false,
    };
    instances.add(instance);
    launches++;
    launched.browser.on('disconnected', () => onDisconnected(instance));
    log.info(
      { pid: instance.pid, generation: instance.generation, version: instance.version },
      'browser started',
    );
    return instance;
  }

  function onDisconnected(instance: Instance): void {
    instance.lost = true;
    instances.delete(instance);
    if (current === instance) current = undefined;
    for (let i = spares.length - 1; i >= 0; i--) {
      if (spares[i]!.instance === instance) spares.splice(i, 1)[0]!.lease.release();
    }
    // Orphaned renderers and helpers of a browser that died must not linger.
    if (instance.pid !== undefined) killGroup(instance.pid);
    if (instance.closing || closed) return;
    crashes++;
    log.warn({ pid: instance.pid, generation: instance.generation }, 'browser disconnected unexpectedly');
    // Respawn at once so the next request finds a warm browser, unless it keeps dying: then the
    // next request launches one (and reports the failure) instead of a loop doing it unseen.
    const now = Date.now();
    if (now - lastCrashAt > 10_000) {
      setTimeout(() => {
        if (!closed && current === undefined) pool.warm().catch(() => {});
      }, 100).unref();
    }
    lastCrashAt = now;
  }

  async function instanceForWork(): Promise<{ instance: Instance; launchMs: number }> {
    if (closed) throw new AppError('unavailable', 'The server is shutting down', { retryAfter: 1 });
    if (current && !current.lost && !current.retiring) return { instance: current, launchMs: 0 };
    if (launchFailure && Date.now() - launchFailure.at < LAUNCH_RETRY_MS) throw launchFailure.error;
    const started = performance.now();
    launching ??= launch()
      .then((instance) => {
        launchFailure = undefined;
        current = instance;
        return instance;
      })
      .catch((err) => {
        const error =
          err instanceof AppError
            ? err
            : new AppError(
                'unavailable',
                'Screenshots are temporarily unavailable: the browser could not be started',
                {
                  detail: `launch failed: ${firstLine(err)}`,
                  retryAfter: LAUNCH_RETRY_MS / 1000,
                  cause: err,
                },
              );
        launchFailure = { at: Date.now(), error };
        log.error({ detail: error.detail }, 'browser launch failed');
        throw error;
      })
      .finally(() => {
        launching = undefined;
      });
    const instance = await launching;
    return { instance, launchMs: performance.now() - started };
  }

  async function createLease(instance: Instance, viewport: Viewport, launchMs: number): Promise<LeaseImpl> {
    const started = performance.now();
    instance.open++;
    let prepared: CaptureContext;
    try {
      prepared = await openCaptureContext(instance, viewport, opts.proxy, `b${instance.generation}`);
    } catch (err) {
      instance.open--;
      drainIfDone(instance);
      throw err;
    }
    const { context, page, cdp, egress } = prepared;
    let released = false;
    const lease: LeaseImpl = {
      context,
      page,
      cdp,
      egress,
      viewport,
      get browserLost() {
        return instance.lost;
      },
      get pageCrashed() {
        return prepared.pageCrashed();
      },
      gone: prepared.gone,
      timings: { launch: launchMs, context: performance.now() - started },
      release() {
        if (released) return;
        released = true;
        lease.onRelease?.();
        // The replacement spare is made after the capture, not during it: on a small machine
        // creating a context alongside a navigation doubled the navigation time (measured).
        void closeContext(instance, context, egress).then(() => {
          if (lease.refill) topUp(viewport);
        });
      },
      refill: true,
    };
    return lease;
  }

  async function closeContext(instance: Instance, context: BrowserContext, egress?: EgressSession) {
    try {
      if (!instance.lost) await withTimeout(context.close(), CLOSE_TIMEOUT_MS);
    } catch (err) {
      // The browser is being closed under it (shutdown, recycling): nothing is wrong.
      if (closed || instance.closing) {
        log.debug(
          { err: firstLine(err), generation: instance.generation },
          'context closed with its browser',
        );
        return;
      }
      // A context that will not close means a wedged browser: replace it.
      log.warn({ err: firstLine(err), generation: instance.generation }, 'context close failed');
      retire(instance);
    } finally {
      await egress?.close().catch(() => {});
      instance.open--;
      drainIfDone(instance);
    }
  }

  function retire(instance: Instance): void {
    if (instance.retiring) return;
    instance.retiring = true;
    if (current === instance) current = undefined;
    for (let i = spares.length - 1; i >= 0; i--) {
      if (spares[i]!.instance === instance) spares.splice(i, 1)[0]!.lease.release();
    }
    drainIfDone(instance);
  }

  function drainIfDone(instance: Instance): void {
    if (instance.retiring && instance.open <= 0 && !instance.closing && !instance.lost) {
      void closeInstance(instance);
    }
  }

  async function closeInstance(instance: Instance): Promise<void> {
    instance.closing = true;
    try {
      await withTimeout(instance.browser.close(), CLOSE_TIMEOUT_MS);
    } catch (err) {
      log.warn({ err: (err as Error).message, pid: instance.pid }, 'browser close timed out; killing it');
    }
    if (instance.pid !== undefined) killGroup(instance.pid);
    instances.delete(instance);
    log.info({ pid: instance.pid, generation: instance.generation, jobs: instance.jobs }, 'browser closed');
  }

  function keyOf(v: Viewport): string {
    return `${v.name}:${v.width}x${v.height}@${v.scale}${v.mobile ? 'm' : ''}`;
  }

  /**
   * Fills the spares for `viewport` up to `spareContexts`, one at a time (two contexts created at
   * once would compete with the capture in progress for the CPU), evicting the oldest spares of
   * other viewports when the total is reached.
   */
  function topUp(viewport: Viewport): void {
    if (closed) return;
    const instance = current;
    if (!instance) {
      if (replaceRetired && ![...instances].some((i) => i.retiring && i.open > 0)) {
        replaceRetired = false;
        pool.warm().catch(() => {});
      }
      return;
    }
    if (opts.spareContexts === 0 || instance.retiring || instance.lost) return;
    const key = keyOf(viewport);
    const pendingAll = [...pending.values()].reduce((a, b) => a + b, 0);
    const mine = spares.filter((s) => s.key === key).length + (pending.get(key) ?? 0);
    if (mine >= opts.spareContexts) return;
    if (spares.length + pendingAll >= opts.spareContexts) {
      const victim = spares.findIndex((s) => s.key !== key);
      if (victim < 0) return;
      // Evicted for good: refilling its own viewport in turn would evict this one's, and the
      // two would trade places for ever, making and closing contexts (found: /readyz showed 0
      // spares and every mobile request made its own context).
      const evicted = spares.splice(victim, 1)[0]!.lease;
      evicted.refill = false;
      evicted.release();
    }
    pending.set(key, (pending.get(key) ?? 0) + 1);
    createLease(instance, viewport, 0)
      .then((lease) => {
        pending.set(key, (pending.get(key) ?? 1) - 1);
        if (closed || instance !== current || instance.retiring || instance.lost) return lease.release();
        spares.push({ key, instance, lease });
        topUp(viewport);
      })
      .catch((err) => {
        pending.set(key, (pending.get(key) ?? 1) - 1);
        // A spare still being made when the browser closes (shutdown, recycling) fails by design.
        if (closed || instance.closing || instance.retiring) {
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
      const { instance, launchMs } = await instanceForWork();
      const key = keyOf(viewport);
      const at = spares.findIndex((s) => s.key === key && s.instance === instance);
      const lease =
        at >= 0 ? spares.splice(at, 1)[0]!.lease : await createLease(instance, viewport, launchMs);
      // A spare's set-up happened before this request: only the launch (if any) was waited for.
      if (at >= 0) lease.timings = { launch: launchMs, context: 0 };
      lease.onRelease = memory.watch();
      instance.jobs++;
      if (instance.jobs >= opts.recycleAfter) {
        log.info({ generation: instance.generation, jobs: instance.jobs }, 'recycling browser');
        replaceRetired = true;
        retire(instance);
      }
      return lease;
    },

    async warm() {
      await instanceForWork();
      topUp(opts.defaultViewport);
    },

    status() {
      return {
        pid: current?.pid,
        generation: current?.generation ?? 0,
        jobs: current?.jobs ?? 0,
        spares: spares.length,
        launches,
        crashes,
        up: current !== undefined && !current.lost,
        // Kept until a launch succeeds: a browser that cannot start stays visible to /readyz.
        launchError: launchFailure ? (launchFailure.error.detail ?? launchFailure.error.message) : undefined,
        sandbox: current?.sandbox,
        sandboxWarning: current && !current.sandbox ? sandboxWarning : undefined,
        runsAs: current?.runsAs,
      };
    },

    processes() {
      const groups = new Set([...instances].map((i) => i.pid).filter((p): p is number => p !== undefined));
      return groups.size === 0 ? [] : listProcesses().filter((p) => groups.has(p.pgid) && p.state !== 'Z');
    },

    async close() {
      closed = true;
      memory.close();
      for (const s of spares.splice(0)) s.lease.release();
      await launching?.catch(() => {});
      await Promise.all(
        [...instances].map(async (instance) => {
          // Leases still open belong to requests the HTTP layer has already waited for.
          instance.retiring = true;
          if (!instance.closing && !instance.lost) await closeInstance(instance);
          if (instance.pid !== undefined && liveGroupMembers(instance.pid).length > 0)
            killGroup(instance.pid);
        }),
      );
      current = undefined;
      await background?.close();
    },
  };
  return pool;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
