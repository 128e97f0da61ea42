/**
 * A page that keeps the CPU busy yields it to the others.
 *
 * The fair queue bounds how long an account waits for a capture slot, not what a page does with
 * its slot: one page spinning in its main thread and in four workers for its whole time-out
 * (15 s) took both cores of a 2-core node, and another account's plain capture went from 247 to
 * 579 ms at the median (2.34×, measured; `bench/hostile-pages.ts`). Each time the memory guard
 * looks at the renderers (5 times a second while captures run), this reads how much CPU each one
 * used since the last look; a renderer past `sharePercent` of one core that has used at least a
 * second of CPU in all has every thread of its process set to a low priority (nice 10), for the
 * rest of its life. The second keeps a page that only loads out of it (a heavy page's load
 * takes a few hundred ms of CPU); a page that spins gets there in one to two seconds. It still runs when a
 * core is free, so a heavy page alone on the node is as fast as before; under contention the
 * light pages, the cards and the server go first (measured: 2.34× → 1.03–1.05×).
 *
 * A renderer belongs to one capture context (Chromium never shares one between contexts), so
 * the lowered priority ends with the capture.
 */
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import type { Logger } from 'pino';
import { errnoCode } from '../../../../lib/os-error.js';

export interface CpuGuard {
  /** One look at `renderers` (pids): lowers those past the share since the previous look. */
  look(renderers: readonly number[]): void;
  /** Renderer processes lowered so far (metrics, tests). */
  readonly lowered: number;
}

/** What the guard reads and changes; the defaults use /proc and setpriority(2). */
export interface CpuGuardSystem {
  /** CPU milliseconds `pid` has used (every thread), undefined once it is gone. */
  cpuMs(pid: number): number | undefined;
  /** The thread ids of `pid`. */
  threads(pid: number): number[];
  /** Sets one thread's nice value; throws as os.setPriority does. */
  setNice(tid: number, nice: number): void;
  now(): number;
}

/**
 * About a tenth of a normal thread's share under contention (kernel weight 110 against 1024): the
 * others go first, and a heavy page that is not hostile still advances; at nice 19 (15 against
 * 1024) it would all but stop on a busy node and run into its time-out.
 */
const LOW = 10;

/** CPU a renderer must have used in all before it can be lowered. */
const DEFAULT_MIN_CPU_MS = 1_000;

/** /proc/PID/stat counts CPU in ticks of 1/100 s (USER_HZ is 100 on every Linux we run on). */
const TICK_MS = 10;

export const procSystem: CpuGuardSystem = {
  cpuMs(pid) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/stat`, 'latin1');
    } catch {
      return undefined;
    }
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) * TICK_MS;
  },
  threads(pid) {
    try {
      return readdirSync(`/proc/${pid}/task`).map(Number);
    } catch {
      return [];
    }
  },
  setNice: (tid, nice) => os.setPriority(tid, nice),
  now: () => performance.now(),
};

export function createCpuGuard(opts: {
  /** Percent of one core a renderer may use between two looks; 0 turns the guard off. */
  sharePercent: number;
  /** CPU milliseconds a renderer must have used in all first (default 1 s). */
  minCpuMs?: number;
  log: Logger;
  system?: CpuGuardSystem;
}): CpuGuard {
  const sys = opts.system ?? procSystem;
  const minCpuMs = opts.minCpuMs ?? DEFAULT_MIN_CPU_MS;
  const seen = new Map<number, { cpuMs: number; at: number }>();
  // Lowered renderers and the threads of each already set: a look renices only new threads.
  const low = new Map<number, Set<number>>();
  let lowered = 0;
  // Without the right to renice Chromium's processes (another user, no CAP_SYS_NICE) the guard
  // says so once and stops trying.
  let refused = false;

  /** Every thread of `pid` to the low priority; new threads since the last look included. */
  const lower = (pid: number) => {
    const done = low.get(pid);
    for (const tid of sys.threads(pid)) {
      if (done?.has(tid)) continue;
      try {
        sys.setNice(tid, LOW);
      } catch (err) {
        const code = errnoCode(err);
        if (code === 'ESRCH') continue; // the thread ended meanwhile
        refused = true;
        opts.log.warn(
          { err: code ?? String(err) },
          'cannot lower the priority of a busy page: CPU-heavy pages are not held back',
        );
        return;
      }
      done?.add(tid);
    }
  };

  /** Forgets pids that are no longer renderers (ended; a pid used again starts over). */
  const sweep = (renderers: readonly number[]) => {
    const present = new Set(renderers);
    for (const pid of seen.keys()) if (!present.has(pid)) seen.delete(pid);
    for (const pid of low.keys()) if (!present.has(pid)) low.delete(pid);
  };

  /** Percent of a core `pid` used since the last look; undefined before a second of CPU in all. */
  const busyPercent = (pid: number, now: number): number | undefined => {
    const cpuMs = sys.cpuMs(pid);
    if (cpuMs === undefined) return undefined;
    const before = seen.get(pid);
    seen.set(pid, { cpuMs, at: now });
    if (!before || now <= before.at || cpuMs < minCpuMs) return undefined;
    return ((cpuMs - before.cpuMs) / (now - before.at)) * 100;
  };

  return {
    look(renderers) {
      if (opts.sharePercent <= 0 || refused) return;
      const now = sys.now();
      sweep(renderers);
      for (const pid of renderers) {
        if (low.has(pid)) {
          lower(pid);
          continue;
        }
        const percent = busyPercent(pid, now);
        if (percent === undefined || percent < opts.sharePercent) continue;
        low.set(pid, new Set());
        lowered++;
        opts.log.info({ pid, cpuPercent: Math.round(percent) }, 'a busy page yields the CPU to the others');
        lower(pid);
        if (refused) return;
      }
    },
    get lowered() {
      return lowered;
    },
  };
}
