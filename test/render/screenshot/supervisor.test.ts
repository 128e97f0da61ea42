import { EventEmitter } from 'node:events';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { isAppError } from '../../../src/errors.js';
import {
  createSupervisor,
  LAUNCH_RETRY_MS,
  type SupervisorOptions,
} from '../../../src/render/screenshot/engine/browser/supervisor.js';
import { capturedLogger } from '../../helpers/logs.js';
import { until } from '../../helpers/wait.js';

/** A browser process that never was: it disconnects when told to, or when closed. */
class FakeBrowser extends EventEmitter {
  closed = 0;
  hangOnClose = false;
  async close(): Promise<void> {
    this.closed++;
    if (this.hangOnClose) return new Promise(() => {});
    this.emit('disconnected');
  }
  crash(): void {
    this.emit('disconnected');
  }
}

interface Fake {
  browser: FakeBrowser;
  pid: number | undefined;
}

function setup(over: Partial<SupervisorOptions<Fake>> = {}) {
  const launched: Fake[] = [];
  const killed: number[] = [];
  const dropped: number[] = [];
  let respawns = 0;
  let failNext: Error | undefined;
  let clock = 1_000_000;
  const { log, lines } = capturedLogger();
  const sup = createSupervisor<Fake>({
    launch: async () => {
      if (failNext) throw failNext;
      const fake = { browser: new FakeBrowser(), pid: 100 + launched.length };
      launched.push(fake);
      return fake;
    },
    recycleAfter: 3,
    respawn: () => {
      respawns++;
    },
    onDropped: (i) => dropped.push(i.generation),
    log,
    now: () => clock,
    kill: (pgid) => killed.push(pgid),
    leftovers: () => [],
    ...over,
  });
  return {
    sup,
    launched,
    killed,
    dropped,
    lines,
    respawns: () => respawns,
    failWith: (err: Error | undefined) => {
      failNext = err;
    },
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

describe('the browser supervisor', () => {
  it('launches once for concurrent callers and reuses the running browser', async () => {
    const t = setup();
    const [a, b] = await Promise.all([t.sup.forWork(), t.sup.forWork()]);
    expect(t.launched).toHaveLength(1);
    expect(a.instance).toBe(b.instance);
    expect(a.instance.generation).toBe(1);
    const again = await t.sup.forWork();
    expect(again.instance).toBe(a.instance);
    expect(again.launchMs).toBe(0);
    expect(t.sup.stats()).toEqual({ launches: 1, crashes: 0, launchError: undefined });
  });

  it('retires a browser after its quota of captures and closes it once its contexts are closed', async () => {
    const t = setup();
    const { instance } = await t.sup.forWork();
    t.sup.hold(instance);
    for (let i = 0; i < 3; i++) t.sup.countJob(instance);
    expect(instance.retiring).toBe(true);
    expect(t.sup.current).toBeUndefined();
    expect(t.dropped).toEqual([1]);
    // A context is still open: the browser waits for it.
    expect(t.launched[0]!.browser.closed).toBe(0);
    t.sup.replaceRecycled();
    expect(t.respawns()).toBe(0);
    t.sup.unhold(instance);
    await until(() => t.killed.includes(100), 1000);
    expect(t.launched[0]!.browser.closed).toBe(1);
    // Closed on purpose: no crash counted.
    expect(t.sup.stats().crashes).toBe(0);
    t.sup.replaceRecycled();
    expect(t.respawns()).toBe(1);
    // Only once per recycle.
    t.sup.replaceRecycled();
    expect(t.respawns()).toBe(1);
    const next = await t.sup.forWork();
    expect(next.instance.generation).toBe(2);
  });

  it('counts a crash, kills what the browser left and respawns it in the background', async () => {
    const t = setup();
    const { instance } = await t.sup.forWork();
    t.launched[0]!.browser.crash();
    expect(instance.lost).toBe(true);
    expect(t.sup.current).toBeUndefined();
    expect(t.killed).toEqual([100]);
    expect(t.dropped).toEqual([1]);
    expect(t.sup.stats().crashes).toBe(1);
    await until(() => t.respawns() === 1, 1000);
    expect(t.lines.some((l) => l.msg === 'browser disconnected unexpectedly')).toBe(true);
  });

  it('does not respawn in the background a browser that keeps crashing', async () => {
    const t = setup();
    await t.sup.forWork();
    t.launched[0]!.browser.crash();
    t.advance(2_000);
    await t.sup.forWork();
    t.launched[1]!.browser.crash();
    await new Promise((r) => setTimeout(r, 250));
    expect(t.sup.stats().crashes).toBe(2);
    expect(t.respawns()).toBe(1);
  });

  it('reports a failed launch and does not try again for a while', async () => {
    const t = setup();
    t.failWith(new Error('spawn ENOENT\nmore'));
    const first = await t.sup.forWork().catch((e) => e);
    expect(isAppError(first, 'unavailable')).toBe(true);
    expect(first.detail).toBe('launch failed: spawn ENOENT');
    t.failWith(undefined);
    // Within the back-off the same error is thrown without a launch.
    await expect(t.sup.forWork()).rejects.toBe(first);
    expect(t.launched).toHaveLength(0);
    expect(t.sup.stats().launchError).toBe('launch failed: spawn ENOENT');
    t.advance(LAUNCH_RETRY_MS + 1);
    await t.sup.forWork();
    expect(t.launched).toHaveLength(1);
    expect(t.sup.stats().launchError).toBeUndefined();
  });

  it('retires a browser at once when it has no open context', async () => {
    const t = setup();
    const { instance } = await t.sup.forWork();
    t.sup.retire(instance);
    expect(t.dropped[0]).toBe(1);
    await until(() => t.launched[0]!.browser.closed === 1, 1000);
    const seen = t.dropped.length;
    t.sup.retire(instance);
    expect(t.dropped).toHaveLength(seen);
    expect(t.launched[0]!.browser.closed).toBe(1);
  });

  it('closes every browser, kills leftovers and refuses work afterwards', async () => {
    const groups: number[] = [];
    const t = setup({
      leftovers: (pgid) => {
        groups.push(pgid);
        return [{ pid: pgid }];
      },
    });
    await t.sup.forWork();
    t.launched[0]!.browser.hangOnClose = true;
    // The 5 s wait for a hung browser on a fake clock: no real wait, and its length checked.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    let closed = false;
    const closing = t.sup.close().then(() => {
      closed = true;
    });
    await vi.advanceTimersByTimeAsync(4_999);
    expect(closed).toBe(false);
    expect(t.killed).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    await closing;
    expect(t.launched[0]!.browser.closed).toBe(1);
    expect(groups).toEqual([100]);
    expect(t.killed.filter((p) => p === 100).length).toBeGreaterThanOrEqual(2);
    expect(t.sup.instances()).toEqual([]);
    const err = await t.sup.forWork().catch((e) => e);
    expect(isAppError(err, 'unavailable')).toBe(true);
    expect(err.message).toBe('The server is shutting down');
  });
});
