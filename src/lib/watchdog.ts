import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * The last word on a stop: a small separate process that waits for the grace period and then
 * SIGKILLs Chromium's process groups and the service. Being another process, it fires whatever
 * state the service is in: a main thread that never gets back to its event loop, and also an
 * exit that hangs after every JavaScript thread is gone (process.exit waits for libuv's thread
 * pool, so one thread stuck in a read, a write or a DNS lookup holds the exit for ever; a worker
 * thread would already have been stopped by then). A service ended by it exits by SIGKILL
 * (status 137). It ignores SIGTERM/SIGINT/SIGHUP (a supervisor signals the whole group or
 * cgroup), leaves as soon as the service is gone, and then also ends the browser groups it
 * was told about, so an abrupt end of the service leaves no browser behind either.
 */
const WATCHDOG_CODE = `
const fs = require('node:fs');
const [pid, started, graceMs] = process.argv.slice(1).map(Number);
const known = process.argv.slice(4).map(Number);
for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => {});
const stat = (p) => {
  try {
    const text = fs.readFileSync('/proc/' + p + '/stat', 'latin1');
    const close = text.lastIndexOf(')');
    const rest = text.slice(close + 2).split(' ');
    return { comm: text.slice(text.indexOf('(') + 1, close), state: rest[0], ppid: Number(rest[1]), pgid: Number(rest[2]), started: Number(rest[19]) };
  } catch {
    return undefined;
  }
};
// The same process, not a later one that got its pid.
const serviceAlive = () => {
  const s = stat(pid);
  return s !== undefined && s.state !== 'Z' && s.started === started;
};
const processes = () => {
  let names = [];
  try { names = fs.readdirSync('/proc'); } catch {}
  return names.filter((n) => /^\\d+$/.test(n)).map((n) => ({ pid: Number(n), ...stat(Number(n)) })).filter((p) => p.comm !== undefined);
};
const endBrowsers = (all) => {
  const groups = new Set();
  for (const p of all) {
    // Chromium's browser process leads its own group (zygote, GPU, renderers share it).
    if (p.ppid === pid && p.pid === p.pgid && p.comm.startsWith('chrom')) groups.add(p.pgid);
  }
  for (const g of known) {
    if (all.some((p) => p.pgid === g && p.comm.startsWith('chrom') && p.state !== 'Z')) groups.add(g);
  }
  for (const g of groups) { try { process.kill(-g, 'SIGKILL'); } catch {} }
};
const deadline = Date.now() + graceMs;
const tick = () => {
  if (!serviceAlive()) {
    endBrowsers(processes());
    process.exit(0);
  }
  if (Date.now() >= deadline) {
    endBrowsers(processes());
    try { process.kill(pid, 'SIGKILL'); } catch {}
    process.exit(0);
  }
  setTimeout(tick, Math.min(100, Math.max(1, deadline - Date.now())));
};
tick();
`;

export interface Watchdog {
  /**
   * Disarms it, for a process that goes on running. A process that is about to exit does not
   * call it: the watchdog leaves by itself once the process is gone, and an exit that hangs is
   * what it is there for.
   */
  cancel(): void;
}

/**
 * Arms a watchdog that ends this process (and its Chromium) `graceMs` from now. `browserGroups`
 * are the process groups of this process's browsers now (also ended if this process dies first).
 */
export function startWatchdog(graceMs: number, browserGroups: number[] = []): Watchdog {
  const child = spawn(
    process.execPath,
    [
      '-e',
      WATCHDOG_CODE,
      String(process.pid),
      String(startTime(process.pid)),
      String(graceMs),
      ...browserGroups.map(String),
    ],
    // Its own group and session, so a signal to ours does not reach it; no inherited stdio (a
    // full pipe must not hold it) and no NODE_OPTIONS.
    { detached: true, stdio: 'ignore', env: {} },
  );
  child.on('error', () => {});
  child.unref();
  return {
    cancel() {
      try {
        child.kill('SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}

/** Field 22 of /proc/<pid>/stat: when the process started (clock ticks since boot). */
function startTime(pid: number): number {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[19]);
  } catch {
    return 0;
  }
}
