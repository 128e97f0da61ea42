// @module-tag process
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryGuard } from '../../../src/render/screenshot/engine/browser/memory-guard.js';
import {
  killGroup,
  liveGroupMembers,
  residentBytes,
} from '../../../src/render/screenshot/engine/browser/processes.js';
import { capturedLogger } from '../../helpers/logs.js';
import { until } from '../../helpers/wait.js';

// A stand-in for a browser that keeps its memory after its pages are ended (the real browser
// gave 2 GB of Blobs back within a second, so this path cannot be produced with Chromium on
// demand): a process group whose leader holds 200 MB and is no renderer.
let child: ChildProcess | undefined;
afterEach(() => {
  if (child?.pid) killGroup(child.pid);
});

function startHolder(): ChildProcess {
  return spawn(
    process.execPath,
    ['-e', 'globalThis.held = Buffer.alloc(200 * 2 ** 20, 1); setInterval(() => {}, 1000);'],
    { detached: true, stdio: 'ignore' },
  );
}

describe("the memory guard and a browser's own processes", () => {
  it('ends a browser whose own process stays over the limit after its pages were ended', async () => {
    child = startHolder();
    const pid = child.pid!;
    await until(() => residentBytes(pid) > 150 * 2 ** 20, 10_000);
    const { log, lines } = capturedLogger();
    const guard = createMemoryGuard({
      groups: () => [pid],
      limitBytes: 0,
      browserLimitBytes: 100 * 2 ** 20,
      graceMs: 300,
      intervalMs: 50,
      log,
    });
    const stop = guard.watch();
    try {
      await until(() => liveGroupMembers(pid).length === 0, 10_000);
    } finally {
      stop();
      guard.close();
    }
    expect(guard.browserKills).toBe(1);
    expect(lines.map((l) => l.msg)).toEqual([
      'the browser used more memory than allowed: the pages in flight were ended',
      'the browser kept more memory than allowed after its pages ended: browser ended',
    ]);
  });

  it('leaves a browser under the limit alone, and checks nothing when the limit is 0', async () => {
    child = startHolder();
    const pid = child.pid!;
    await until(() => residentBytes(pid) > 150 * 2 ** 20, 10_000);
    const { log, lines } = capturedLogger();
    for (const browserLimitBytes of [512 * 2 ** 20, 0]) {
      const guard = createMemoryGuard({
        groups: () => [pid],
        limitBytes: 0,
        browserLimitBytes,
        graceMs: 100,
        intervalMs: 20,
        log,
      });
      const stop = guard.watch();
      await new Promise((r) => setTimeout(r, 400));
      stop();
      guard.close();
      expect(guard.browserKills).toBe(0);
    }
    expect(liveGroupMembers(pid).length).toBe(1);
    expect(lines).toEqual([]);
  });
});
