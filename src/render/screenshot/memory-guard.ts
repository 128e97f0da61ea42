/**
 * A memory limit per page. `--max-old-space-size` caps only a page's JavaScript heap; array
 * buffers, canvases and images live outside it, so a hostile page could still take gigabytes
 * (measured: 16 × 256 MB typed arrays, or 200 large canvases, put Chromium past 5 GB and the
 * page was captured as if nothing happened). While captures run, each renderer process of the
 * pool's browsers is looked at a few times a second, and one past the limit is killed: its page
 * crashes, and the capture answers the documented 502 for a tab that used too much memory.
 */
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { listProcesses, residentBytes } from './processes.js';

export interface MemoryGuard {
  /** Starts watching for one capture; the returned function ends it (idempotent). */
  watch(): () => void;
  /** Renderers killed so far (metrics, tests). */
  readonly kills: number;
  close(): void;
}

/** Often enough that a page filling memory at GB/s overshoots by a fraction of a second's worth. */
const INTERVAL_MS = 200;
const RENDERER_ARG = /(?:^|[\s\0])--type=renderer(?:[\s\0]|$)/;

/** Ticks between scans for new renderer processes (a page's cross-site frames get their own). */
const SCAN_EVERY = 5;

export function createMemoryGuard(opts: {
  /** Process groups of the running browsers (their pids). */
  groups: () => number[];
  /** Resident bytes a renderer may hold; 0 turns the guard off. */
  limitBytes: number;
  log: Logger;
  intervalMs?: number;
}): MemoryGuard {
  let active = 0;
  let kills = 0;
  let ticks = 0;
  let timer: NodeJS.Timeout | undefined;
  // Renderer pids of the browsers' groups, from the last scan of /proc. A scan reads every
  // process's stat file, so it runs once a second; the renderers' sizes are read every tick.
  let renderers: number[] = [];
  // Whether a pid is a renderer, read once per pid (its command line does not change).
  const isRendererCache = new Map<number, boolean>();

  function scan(): void {
    const groups = new Set(opts.groups());
    const live = listProcesses().filter((p) => groups.has(p.pgid) && p.state !== 'Z');
    const pids = new Set(live.map((p) => p.pid));
    for (const pid of isRendererCache.keys()) if (!pids.has(pid)) isRendererCache.delete(pid);
    renderers = live.map((p) => p.pid).filter(isRenderer);
  }

  function tick(): void {
    if (ticks++ % SCAN_EVERY === 0) scan();
    for (const pid of renderers) {
      const rss = residentBytes(pid);
      if (rss <= opts.limitBytes) continue;
      try {
        process.kill(pid, 'SIGKILL');
        kills++;
        opts.log.warn(
          { pid, rssMiB: Math.round(rss / 2 ** 20), limitMiB: Math.round(opts.limitBytes / 2 ** 20) },
          'a page used more memory than allowed: its renderer was ended',
        );
      } catch {
        // exited meanwhile
      }
    }
  }

  function isRenderer(pid: number): boolean {
    let known = isRendererCache.get(pid);
    if (known === undefined) {
      try {
        // Processes forked from Chromium's zygote rewrite their title: one string with spaces
        // rather than NUL-separated arguments.
        known = RENDERER_ARG.test(readFileSync(`/proc/${pid}/cmdline`, 'latin1'));
      } catch {
        known = false;
      }
      isRendererCache.set(pid, known);
    }
    return known;
  }

  return {
    get kills() {
      return kills;
    },
    watch() {
      if (opts.limitBytes <= 0) return () => {};
      active++;
      if (!timer) {
        ticks = 0;
        timer = setInterval(tick, opts.intervalMs ?? INTERVAL_MS);
        // The first look right away (off the acquiring request's path): a page may fill memory fast.
        setImmediate(() => timer && tick());
      }
      timer.unref();
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        active--;
        if (active === 0 && timer) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
    close() {
      clearInterval(timer);
      timer = undefined;
      active = 0;
    },
  };
}
