import { listProcesses, residentBytes } from '../../src/render/screenshot/engine/browser/processes.js';

/** Live Chromium processes started by `parentPid` (its browsers and their whole process groups). */
export function chromiumOf(parentPid: number): { processes: number; rssMiB: number } {
  const all = listProcesses();
  const browsers = all.filter((p) => p.ppid === parentPid && p.comm.startsWith('chromium')).map((p) => p.pid);
  const members = all.filter((p) => browsers.includes(p.pgid) && p.state !== 'Z');
  // A process that exited meanwhile counts 0.
  const bytes = members.reduce((sum, p) => sum + residentBytes(p.pid), 0);
  return { processes: members.length, rssMiB: bytes / 2 ** 20 };
}
