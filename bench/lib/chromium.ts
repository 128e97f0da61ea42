import { readFileSync } from 'node:fs';
import { listProcesses } from '../../src/render/screenshot/processes.js';

/** Live Chromium processes started by `parentPid` (its browsers and their whole process groups). */
export function chromiumOf(parentPid: number): { processes: number; rssMiB: number } {
  const all = listProcesses();
  const browsers = all.filter((p) => p.ppid === parentPid && p.comm.startsWith('chromium')).map((p) => p.pid);
  const members = all.filter((p) => browsers.includes(p.pgid) && p.state !== 'Z');
  let kib = 0;
  for (const p of members) {
    try {
      const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${p.pid}/status`, 'utf8'));
      kib += Number(m?.[1] ?? 0);
    } catch {
      // exited meanwhile
    }
  }
  return { processes: members.length, rssMiB: kib / 1024 };
}
