/**
 * The browser supervisor: one browser process at a time over an injected `launch()`. It starts
 * one on demand (one launch shared by concurrent callers, none retried for a while after a
 * failure), retires it after N captures, respawns it after a crash, kills what a browser leaves
 * behind and closes them all. It knows nothing of contexts beyond how many each browser has open.
 */
import type { Logger } from 'pino';
import { AppError } from '../../../../errors.js';
import { firstLine } from '../../../../lib/first-line.js';
import { withTimeout } from '../../../../lib/timeout.js';
import { killGroup, liveGroupMembers } from './processes.js';

const CLOSE_TIMEOUT_MS = 5_000;
/** A browser that failed to start is not tried again for this long (each try costs a process spawn). */
export const LAUNCH_RETRY_MS = 5_000;
/** A browser that dies again within this long is not respawned in the background. */
const CRASH_LOOP_MS = 10_000;
const RESPAWN_DELAY_MS = 100;

/** What the supervisor needs of a launched browser. */
export interface BrowserProcess {
  browser: { close(): Promise<void>; on(event: 'disconnected', listener: () => void): unknown };
  pid: number | undefined;
}

/** Bookkeeping of one browser process. */
export interface InstanceState {
  generation: number;
  jobs: number;
  /** Open contexts, spares included. */
  open: number;
  retiring: boolean;
  lost: boolean;
  closing: boolean;
}

export type Instance<B extends BrowserProcess> = B & InstanceState;

export interface SupervisorOptions<B extends BrowserProcess> {
  launch(): Promise<B>;
  /** Captures after which the browser is replaced. */
  recycleAfter: number;
  /** Starts a browser (and whatever goes with it) in the background: after a crash or a recycle. */
  respawn(): void;
  /** A browser was lost or retired: what was kept ready in it must go. */
  onDropped(instance: Instance<B>): void;
  log: Logger;
  now?: () => number;
  /** Kills a process group (tests inject a fake). */
  kill?: (pgid: number) => void;
  /** Live members of a process group (tests inject a fake). */
  leftovers?: (pgid: number) => unknown[];
}

export interface Supervisor<B extends BrowserProcess> {
  /** The browser new work goes to, launching one if none runs; throws while launches fail. */
  forWork(): Promise<{ instance: Instance<B>; launchMs: number }>;
  /** The browser new work goes to, if one runs. */
  readonly current: Instance<B> | undefined;
  readonly closed: boolean;
  /** Every browser not yet closed (the current one and retired ones still draining). */
  instances(): Instance<B>[];
  /** A context was opened in `instance`. */
  hold(instance: Instance<B>): void;
  /** A context of `instance` was closed: a retired browser with none left is closed. */
  unhold(instance: Instance<B>): void;
  /** A capture was handed to `instance`: it is retired after its quota. */
  countJob(instance: Instance<B>): void;
  /** Takes `instance` out of service; it closes once its contexts are closed. */
  retire(instance: Instance<B>): void;
  /** After a recycle, starts the replacement once the retired browser's work has ended. */
  replaceRecycled(): void;
  stats(): { launches: number; crashes: number; launchError: string | undefined };
  close(): Promise<void>;
}

/** Creates a supervisor; nothing is launched until `forWork`. */
export function createSupervisor<B extends BrowserProcess>(opts: SupervisorOptions<B>): Supervisor<B> {
  const { log } = opts;
  const now = opts.now ?? Date.now;
  const kill = opts.kill ?? killGroup;
  const leftovers = opts.leftovers ?? liveGroupMembers;
  const instances = new Set<Instance<B>>();
  let current: Instance<B> | undefined;
  let launching: Promise<Instance<B>> | undefined;
  let launchFailure: { at: number; error: AppError } | undefined;
  let generation = 0;
  let launches = 0;
  let crashes = 0;
  let lastCrashAt = 0;
  let closed = false;
  /**
   * A browser was retired after its quota of captures: its replacement is started as soon as its
   * captures in flight have ended (not alongside them, on a small machine), so the request after
   * a recycle finds a warm browser instead of paying a launch.
   */
  let replaceRetired = false;

  async function start(): Promise<Instance<B>> {
    const launched = await opts.launch();
    const instance: Instance<B> = {
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
      {
        pid: instance.pid,
        generation: instance.generation,
        version: (launched as { version?: string }).version,
      },
      'browser started',
    );
    return instance;
  }

  function onDisconnected(instance: Instance<B>): void {
    instance.lost = true;
    instances.delete(instance);
    if (current === instance) current = undefined;
    opts.onDropped(instance);
    // Orphaned renderers and helpers of a browser that died must not linger.
    if (instance.pid !== undefined) kill(instance.pid);
    if (instance.closing || closed) return;
    crashes++;
    log.warn({ pid: instance.pid, generation: instance.generation }, 'browser disconnected unexpectedly');
    // Respawn at once so the next request finds a warm browser, unless it keeps dying: then the
    // next request launches one (and reports the failure) instead of a loop doing it unseen.
    const at = now();
    if (at - lastCrashAt > CRASH_LOOP_MS) {
      setTimeout(() => {
        if (!closed && current === undefined) opts.respawn();
      }, RESPAWN_DELAY_MS).unref();
    }
    lastCrashAt = at;
  }

  function launchFailed(err: unknown): never {
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
    launchFailure = { at: now(), error };
    log.error({ detail: error.detail }, 'browser launch failed');
    throw error;
  }

  function drainIfDone(instance: Instance<B>): void {
    if (instance.retiring && instance.open <= 0 && !instance.closing && !instance.lost) {
      void closeInstance(instance);
    }
  }

  async function closeInstance(instance: Instance<B>): Promise<void> {
    instance.closing = true;
    try {
      await withTimeout(instance.browser.close(), CLOSE_TIMEOUT_MS);
    } catch (err) {
      log.warn({ err: (err as Error).message, pid: instance.pid }, 'browser close timed out; killing it');
    }
    if (instance.pid !== undefined) kill(instance.pid);
    instances.delete(instance);
    log.info({ pid: instance.pid, generation: instance.generation, jobs: instance.jobs }, 'browser closed');
  }

  const supervisor: Supervisor<B> = {
    get current() {
      return current;
    },
    get closed() {
      return closed;
    },
    instances: () => [...instances],

    async forWork() {
      if (closed) throw new AppError('unavailable', 'The server is shutting down', { retryAfter: 1 });
      if (current && !current.lost && !current.retiring) return { instance: current, launchMs: 0 };
      if (launchFailure && now() - launchFailure.at < LAUNCH_RETRY_MS) throw launchFailure.error;
      const started = performance.now();
      launching ??= start()
        .then((instance) => {
          launchFailure = undefined;
          current = instance;
          return instance;
        })
        .catch(launchFailed)
        .finally(() => {
          launching = undefined;
        });
      const instance = await launching;
      return { instance, launchMs: performance.now() - started };
    },

    hold(instance) {
      instance.open++;
    },

    unhold(instance) {
      instance.open--;
      drainIfDone(instance);
    },

    countJob(instance) {
      instance.jobs++;
      if (instance.jobs >= opts.recycleAfter) {
        log.info({ generation: instance.generation, jobs: instance.jobs }, 'recycling browser');
        replaceRetired = true;
        supervisor.retire(instance);
      }
    },

    retire(instance) {
      if (instance.retiring) return;
      instance.retiring = true;
      if (current === instance) current = undefined;
      opts.onDropped(instance);
      drainIfDone(instance);
    },

    replaceRecycled() {
      if (replaceRetired && ![...instances].some((i) => i.retiring && i.open > 0)) {
        replaceRetired = false;
        opts.respawn();
      }
    },

    stats() {
      return {
        launches,
        crashes,
        // Kept until a launch succeeds: a browser that cannot start stays visible to /readyz.
        launchError: launchFailure ? (launchFailure.error.detail ?? launchFailure.error.message) : undefined,
      };
    },

    async close() {
      closed = true;
      await launching?.catch(() => {});
      await Promise.all(
        [...instances].map(async (instance) => {
          // Leases still open belong to requests the HTTP layer has already waited for.
          instance.retiring = true;
          if (!instance.closing && !instance.lost) await closeInstance(instance);
          if (instance.pid !== undefined && leftovers(instance.pid).length > 0) kill(instance.pid);
        }),
      );
      current = undefined;
    },
  };
  return supervisor;
}
