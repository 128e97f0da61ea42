/**
 * A memory limit per page. `--max-old-space-size` caps only a page's JavaScript heap; array
 * buffers, canvases and images live outside it, so a hostile page could still take gigabytes
 * (measured: 16 × 256 MB typed arrays, or 200 large canvases, put Chromium past 5 GB and the
 * page was captured as if nothing happened). While captures run, each renderer process of the
 * pool's browsers is looked at a few times a second, and one past the limit is killed: its page
 * crashes, and the capture answers the documented 502 for a tab that used too much memory.
 *
 * Some of a page's memory lives in the browser's other processes: the data of every `Blob` a page
 * makes is moved into the BROWSER process (measured: 30 × 100 MB Blobs took it from 98 MB to
 * 2.1 GB while the tab stayed under 500 MB), and Chromium has no switch for that quota (it
 * allows up to 2 GB per browser, then disk). So the browser, GPU and utility processes are
 * watched too: one past its limit while captures run has the pages in flight ended (their
 * renderers killed: a page's Blobs go with it, freed within about a second), and if the memory
 * does not come back within a grace period the whole browser is ended (the pool replaces it).
 */
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { killGroup, listPids, processGroup, residentBytes } from './processes.js';

export interface MemoryGuard {
  /** Starts watching for one capture; the returned function ends it (idempotent). */
  watch(): () => void;
  /** Renderers killed so far (metrics, tests). */
  readonly kills: number;
  /** Times a browser's own processes passed their limit and its pages were ended. */
  readonly browserKills: number;
  close(): void;
}

/** Often enough that a page filling memory at GB/s overshoots by a fraction of a second's worth. */
const INTERVAL_MS = 200;
const RENDERER_ARG = /(?:^|[\s\0])--type=renderer(?:[\s\0]|$)/;
const ZYGOTE_ARG = /(?:^|[\s\0])--type=zygote(?:[\s\0]|$)/;

/** The first look of a watch: the capture's page is loading by then. */
const FIRST_LOOK_MS = 50;

/** Measured: a browser gave back 2 GB of Blobs within 1 s of their page ending. */
const BROWSER_GRACE_MS = 3_000;

export function createMemoryGuard(opts: {
  /** Process groups of the running browsers (their pids). */
  groups: () => number[];
  /** Resident bytes a renderer may hold; 0 turns the guard off. */
  limitBytes: number;
  /** Resident bytes any other process of a browser (browser, GPU, utility) may hold; 0: no check. */
  browserLimitBytes?: number;
  log: Logger;
  intervalMs?: number;
  /** How long a browser's memory may take to come back after its pages were ended. */
  graceMs?: number;
  /** Called on every look with the renderers found (the CPU guard shares this scan). */
  onLook?: (renderers: readonly number[]) => void;
}): MemoryGuard {
  const browserLimit = opts.browserLimitBytes ?? 0;
  const graceMs = opts.graceMs ?? BROWSER_GRACE_MS;
  let active = 0;
  let kills = 0;
  let browserKills = 0;
  // Browser group -> when its pages were ended for its own memory (grace before ending it whole).
  const endedAt = new Map<number, number>();
  let timer: NodeJS.Timeout | undefined;
  // Renderer pids of the browsers' groups, from the last scan of /proc. Every tick scans: a
  // capture's page often gets a renderer made after the watch began (a cross-site navigation, a
  // frame), and when scans ran once a second, a page that filled 2 GB and was captured within
  // that second escaped the limit (seen in CI). With the caches below a scan is one read of the
  // /proc directory (0.06 ms with 84 processes, measured) plus a stat read per new pid.
  let renderers: number[] = [];
  // The browsers' other processes (browser, zygotes, GPU, utility), by group.
  let others = new Map<number, number[]>();
  let rendererGroups = new Map<number, number>();
  // Whether a pid is a renderer, read once per pid (its command line does not change).
  const isRendererCache = new Map<number, boolean>();
  // The process group of each pid seen, read once per pid: reading every process's stat file
  // took 2–5 ms of this thread with ~120 processes (measured), and the first look of each
  // capture ran it as the capture's first CDP commands were in flight, delaying their answers.
  // A group does not change once a process has exec'd. Processes still in our own group are read
  // again each time: the browser we launch sits in ours between its fork and its setsid.
  const groupOf = new Map<number, number>();
  const ownGroup = processGroup(process.pid);

  /** `pid`'s process group, read from /proc the first time it is asked for; undefined if gone. */
  function groupOfPid(pid: number): number | undefined {
    const known = groupOf.get(pid);
    if (known !== undefined) return known;
    const group = processGroup(pid);
    if (group !== undefined && group !== ownGroup) groupOf.set(pid, group);
    return group;
  }

  function scan(): void {
    const groups = new Set(opts.groups());
    const pids = listPids();
    const present = new Set(pids);
    for (const pid of groupOf.keys()) if (!present.has(pid)) groupOf.delete(pid);
    for (const pid of isRendererCache.keys()) if (!present.has(pid)) isRendererCache.delete(pid);
    renderers = [];
    others = new Map();
    rendererGroups = new Map();
    for (const pid of pids) {
      const group = groupOfPid(pid);
      if (group === undefined || !groups.has(group)) continue;
      // A zombie (ended, not yet reaped) has no resident memory: it reads as 0 and is left alone.
      if (isRenderer(pid)) {
        renderers.push(pid);
        rendererGroups.set(pid, group);
      } else others.set(group, [...(others.get(group) ?? []), pid]);
    }
    for (const g of endedAt.keys()) if (!groups.has(g)) endedAt.delete(g);
  }

  function tick(): void {
    scan();
    opts.onLook?.(renderers);
    if (browserLimit > 0) checkBrowsers();
    if (opts.limitBytes <= 0) return;
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

  function checkBrowsers(): void {
    for (const [group, pids] of others) checkBrowser(group, pids);
  }

  function checkBrowser(group: number, pids: Iterable<number>): void {
    let biggest = 0;
    for (const pid of pids) biggest = Math.max(biggest, residentBytes(pid));
    const ended = endedAt.get(group);
    if (biggest <= browserLimit) {
      if (ended !== undefined && Date.now() - ended > graceMs) endedAt.delete(group);
      return;
    }
    const detail = {
      browser: group,
      rssMiB: Math.round(biggest / 2 ** 20),
      limitMiB: Math.round(browserLimit / 2 ** 20),
    };
    if (ended === undefined) {
      // The memory cannot be told apart by page: every page of this browser in flight is ended.
      endedAt.set(group, Date.now());
      browserKills++;
      endPagesOf(group);
      opts.log.warn(detail, 'the browser used more memory than allowed: the pages in flight were ended');
    } else if (Date.now() - ended > graceMs) {
      endedAt.delete(group);
      opts.log.warn(detail, 'the browser kept more memory than allowed after its pages ended: browser ended');
      killGroup(group);
    }
  }

  function endPagesOf(group: number): void {
    for (const pid of renderers) {
      if (rendererGroups.get(pid) !== group) continue;
      try {
        process.kill(pid, 'SIGKILL');
        kills++;
      } catch {
        // exited meanwhile
      }
    }
  }

  function isRenderer(pid: number): boolean {
    const known = isRendererCache.get(pid);
    if (known !== undefined) return known;
    let cmdline = '';
    try {
      // Processes forked from Chromium's zygote rewrite their title: one string with spaces
      // rather than NUL-separated arguments.
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
    } catch {
      return false;
    }
    const renderer = RENDERER_ARG.test(cmdline);
    // A renderer just forked from the zygote still shows the zygote's command line until it
    // rewrites its title; remembered as "not a renderer" it was never looked at again, and once
    // looks ran every tick this caught a 2 GB page: it was taken for one of the browser's own
    // processes (a clean CI's 'browser used more memory than allowed', then the browser ended).
    // So a zygote's (or an empty) command line is read again at the next look.
    if (renderer || (cmdline !== '' && !ZYGOTE_ARG.test(cmdline))) isRendererCache.set(pid, renderer);
    return renderer;
  }

  return {
    get kills() {
      return kills;
    },
    get browserKills() {
      return browserKills;
    },
    watch() {
      if (opts.limitBytes <= 0 && browserLimit <= 0 && !opts.onLook) return () => {};
      active++;
      if (!timer) {
        timer = setInterval(tick, opts.intervalMs ?? INTERVAL_MS);
        // The first look soon, before the interval's: a page may fill memory fast. Not at once:
        // the page is still blank then, and the look (a /proc scan and reads, ~1 ms of this
        // thread) delayed the answers to the capture's first CDP commands (prepare 6.2 → 4.7 ms
        // p50 for a capture with locale, timezone, css and cookies, paired A/B, n = 40).
        setTimeout(() => timer && tick(), FIRST_LOOK_MS).unref();
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
