/**
 * Finding and ending Chromium's processes through /proc (Linux only, like Debian's chromium).
 * Playwright starts the browser as the leader of its own process group, so its zygote, GPU,
 * network and renderer processes share the browser's pid as their group id. When the browser
 * dies abruptly those children are orphaned; killing the group makes sure none keeps running.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** One-letter state from /proc/<pid>/stat: R, S, D, Z (zombie), … */
  state: string;
  comm: string;
}

/** Every process visible in /proc, read once; processes that vanish while reading are skipped. */
export function listProcesses(): ProcessInfo[] {
  const out: ProcessInfo[] = [];
  for (const pid of listPids()) {
    const info = readStat(pid);
    if (info) out.push(info);
  }
  return out;
}

/** The pids in /proc (one directory read; nothing about each process). */
export function listPids(): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) if (/^\d+$/.test(name)) out.push(Number(name));
  return out;
}

/** The process group of `pid`, if it is still there. */
export function processGroup(pid: number): number | undefined {
  return readStat(pid)?.pgid;
}

/** The pid of the process whose command line contains `marker` as a whole argument, if any. */
export function findProcessByArgument(marker: string): number | undefined {
  for (const p of listProcesses()) {
    try {
      const args = readFileSync(`/proc/${p.pid}/cmdline`, 'latin1').split('\0');
      if (args.includes(marker)) return p.pid;
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** Processes in group `pgid` that are still alive (zombies excluded: they hold no resources but a pid). */
export function liveGroupMembers(pgid: number): ProcessInfo[] {
  return listProcesses().filter((p) => p.pgid === pgid && p.state !== 'Z');
}

/** VmRSS of `pid` in bytes; 0 when it is gone. */
export function residentBytes(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** SIGKILLs the whole group; a group that is already gone is not an error. */
export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // ESRCH: nothing left to kill
  }
}

function readStat(pid: number): ProcessInfo | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // comm is in parentheses and may itself contain spaces or parentheses: split after the last ')'.
  const close = text.lastIndexOf(')');
  const comm = text.slice(text.indexOf('(') + 1, close);
  const rest = text.slice(close + 2).split(' ');
  return {
    pid,
    state: rest[0] ?? '?',
    ppid: Number(rest[1]),
    pgid: Number(rest[2]),
    comm,
  };
}
