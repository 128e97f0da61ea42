/**
 * A process's CPU time and resident memory from /proc, read synchronously: /proc answers from
 * memory in microseconds, and an fs call on libuv's thread pool is what the decode pool exists
 * to keep off it. 0 when the process is gone.
 */
import { readFileSync } from 'node:fs';

/** Clock ticks of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const TICK_MS = 10;
const PAGE = 4096;

/** User plus system CPU time of `pid` (all its threads), in ms. */
export function cpuMsOf(pid: number): number {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** Resident bytes of `pid`. */
export function rssOf(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'latin1').split(' ')[1]) * PAGE;
  } catch {
    return 0;
  }
}
