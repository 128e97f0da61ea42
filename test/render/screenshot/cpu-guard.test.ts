// @module-tag process
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CpuGuard,
  type CpuGuardSystem,
  createCpuGuard,
  procSystem,
} from '../../../src/render/screenshot/engine/browser/cpu-guard.js';
import { killGroup } from '../../../src/render/screenshot/engine/browser/processes.js';
import { capturedLogger } from '../../helpers/logs.js';
import { until } from '../../helpers/wait.js';

/** A machine of fake processes: CPU used, threads, and the nice values the guard set. */
function fakeSystem() {
  let now = 0;
  const cpu = new Map<number, number>();
  const threads = new Map<number, number[]>();
  const nice = new Map<number, number>();
  const refuse = new Map<number, string>();
  const system: CpuGuardSystem = {
    cpuMs: (pid) => cpu.get(pid),
    threads: (pid) => threads.get(pid) ?? [],
    setNice(tid, value) {
      const code = refuse.get(tid);
      if (code) throw Object.assign(new Error(`setpriority: ${code}`), { code });
      nice.set(tid, value);
    },
    now: () => now,
  };
  return {
    system,
    nice,
    refuse,
    /** A renderer `pid` with `tids`, having used `ms` of CPU so far. */
    process(pid: number, tids: number[], ms = 0) {
      threads.set(pid, tids);
      cpu.set(pid, ms);
    },
    /** `ms` of wall time pass; each pid in `used` spends that many CPU ms meanwhile. */
    pass(ms: number, used: Record<number, number> = {}) {
      now += ms;
      for (const [pid, spent] of Object.entries(used))
        cpu.set(Number(pid), (cpu.get(Number(pid)) ?? 0) + spent);
    },
    exit(pid: number) {
      cpu.delete(pid);
      threads.delete(pid);
    },
  };
}

/** A look at `pids`, 200 ms in which each spends `used[pid]` CPU ms, and a second look. */
function twoLooks(
  guard: CpuGuard,
  m: ReturnType<typeof fakeSystem>,
  pids: number[],
  used: Record<number, number>,
): void {
  guard.look(pids);
  m.pass(200, used);
  guard.look(pids);
}

describe('the CPU guard (policy, fake processes)', () => {
  it('lowers every thread of a renderer past the share once it has used a second, and only that one', () => {
    const m = fakeSystem();
    const { log, lines } = capturedLogger();
    const guard = createCpuGuard({ sharePercent: 50, log, system: m.system });
    m.process(10, [10, 11, 12], 900); // spinning, just under a second so far
    m.process(20, [20, 21], 5_000); // a long-lived renderer, quiet now
    m.process(30, [30], 0); // a page that loads: busy, but briefly
    twoLooks(guard, m, [10, 20, 30], { 10: 200, 20: 20, 30: 150 });
    // 10: 100 % of a core and 1.1 s in all; 20: 10 %; 30: 75 % but 150 ms in all.
    expect([...m.nice]).toEqual([
      [10, 10],
      [11, 10],
      [12, 10],
    ]);
    expect(guard.lowered).toBe(1);
    expect(lines.map((l) => [l.msg, l.pid, l.cpuPercent])).toEqual([
      ['a busy page yields the CPU to the others', 10, 100],
    ]);
  });

  it('keeps a lowered renderer lowered, its new threads too, even when it goes quiet', () => {
    const m = fakeSystem();
    const guard = createCpuGuard({ sharePercent: 50, log: capturedLogger().log, system: m.system });
    m.process(10, [10], 2_000);
    twoLooks(guard, m, [10], { 10: 180 });
    expect(m.nice.get(10)).toBe(10);
    // A worker started later, and the page quiet: the new thread is lowered at the next look.
    m.process(10, [10, 13], 2_180);
    m.pass(200);
    guard.look([10]);
    expect(m.nice.get(13)).toBe(10);
    expect(guard.lowered).toBe(1);
  });

  it('forgets renderers that are gone; a pid used again starts over', () => {
    const m = fakeSystem();
    const guard = createCpuGuard({ sharePercent: 50, log: capturedLogger().log, system: m.system });
    m.process(10, [10], 2_000);
    twoLooks(guard, m, [10], { 10: 200 });
    m.exit(10);
    guard.look([]);
    // A new process under the old pid, quiet: not lowered because the old one was.
    m.nice.clear();
    m.process(10, [10], 3_000);
    twoLooks(guard, m, [10], { 10: 10 });
    expect(m.nice.size).toBe(0);
    expect(guard.lowered).toBe(1);
  });

  it('does nothing at 0, and asks for nothing', () => {
    const m = fakeSystem();
    const guard = createCpuGuard({ sharePercent: 0, log: capturedLogger().log, system: m.system });
    m.process(10, [10], 2_000);
    twoLooks(guard, m, [10], { 10: 200 });
    expect(m.nice.size).toBe(0);
    expect(guard.lowered).toBe(0);
  });

  it('skips a thread that ended meanwhile; without the right to renice it warns once and stops', () => {
    const m = fakeSystem();
    const { log, lines } = capturedLogger();
    const guard = createCpuGuard({ sharePercent: 50, log, system: m.system });
    m.process(10, [10, 11, 12], 2_000);
    m.process(20, [20], 2_000);
    m.refuse.set(11, 'ESRCH');
    twoLooks(guard, m, [10, 20], { 10: 200 });
    expect(m.nice.get(10)).toBe(10);
    expect(m.nice.get(12)).toBe(10);
    m.refuse.set(20, 'EPERM');
    m.pass(200, { 10: 200, 20: 200 });
    guard.look([10, 20]);
    m.pass(200, { 20: 200 });
    guard.look([10, 20]);
    expect(m.nice.has(20)).toBe(false);
    expect(lines.filter((l) => l.level === 40).map((l) => [l.msg, l.err])).toEqual([
      ['cannot lower the priority of a busy page: CPU-heavy pages are not held back', 'EPERM'],
    ]);
  });
});

describe('the CPU guard on real processes (/proc, setpriority)', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child?.pid) killGroup(child.pid);
  });

  it('lowers every thread of a process spinning in two threads, and reads its CPU from /proc', async () => {
    // A stand-in renderer: a process with a worker thread, both spinning.
    const spin = `const { Worker } = require('node:worker_threads');
new Worker('for (;;) {}', { eval: true });
for (;;) {}`;
    child = spawn(process.execPath, ['-e', spin], { detached: true, stdio: 'ignore' });
    const pid = child.pid!;
    await until(() => (procSystem.cpuMs(pid) ?? 0) >= 300, 10_000);
    const { log } = capturedLogger();
    // A low share: the policy is tested above; here what counts is reading /proc and renicing
    // every thread, on a machine where other tests may hold the cores.
    const guard = createCpuGuard({ sharePercent: 10, minCpuMs: 300, log });
    guard.look([pid]);
    await until(() => {
      guard.look([pid]);
      return guard.lowered === 1;
    }, 10_000);
    const niceOf = (tid: string) => {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'latin1');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    };
    const tids = readdirSync(`/proc/${pid}/task`);
    expect(tids.length).toBeGreaterThan(2);
    expect(tids.map(niceOf)).toEqual(tids.map(() => 10));
  });
});
