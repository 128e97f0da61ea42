// @module-tag process
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { killGroup, listProcesses } from '../../src/render/screenshot/engine/browser/processes.js';

// The watchdog from the build (as the server loads it), in processes that cannot end by
// themselves: a setTimeout or a worker thread there would never fire. A copy of `sleep` named like Chromium's browser
// stands in for it (its own process group, a child of the stuck process), so the test needs no
// browser and launches none with flags of its own.
const root = path.resolve(import.meta.dirname, '../..');
const watchdog = path.join(root, 'dist/src/lib/watchdog.js');
const dir = mkdtempSync(path.join(os.tmpdir(), 'cardshot-watchdog-'));
const stub = path.join(dir, 'chromium-stub');
copyFileSync('/bin/sleep', stub);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(script: string) {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  const started = Date.now();
  const ended = new Promise<{ code: number | null; signal: string | null; ms: number }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, ms: Date.now() - started })),
  );
  return { child, ended, out: () => out };
}

const prelude = `
import { execFileSync, spawn } from 'node:child_process';
import { writeSync } from 'node:fs';
import { startWatchdog } from ${JSON.stringify(watchdog)};
import { readFileSync } from 'node:fs';
const browser = spawn(${JSON.stringify(stub)}, ['600'], { detached: true, stdio: 'ignore' });
// Until the stub has exec'd it is a forked node, not a browser by name: on a loaded machine that
// window lasted past the grace period once (CI), and the stub outlived the test. A real
// browser is up long before any stop.
for (let i = 0; i < 1000; i++) {
  let comm = '';
  try { comm = readFileSync('/proc/' + browser.pid + '/comm', 'utf8').trim(); } catch {}
  if (comm === 'chromium-stub') break;
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
}
writeSync(1, 'browser ' + browser.pid + '\\n');
`;

it('ends a process whose main thread is stuck, and its browser process group, at the grace period (SIGKILL)', async () => {
  const { ended, out } = run(`${prelude}
startWatchdog(1500);
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);`);
  const result = await ended;
  const browser = Number(/browser (\d+)/.exec(out())?.[1]);
  try {
    expect(result.signal).toBe('SIGKILL');
    expect(result.ms).toBeGreaterThanOrEqual(1400);
    expect(result.ms).toBeLessThan(1500 + 3000);
    expect(browser).toBeGreaterThan(0);
    expect(listProcesses().filter((p) => p.pgid === browser && p.state !== 'Z')).toEqual([]);
  } finally {
    if (browser > 0) killGroup(browser);
  }
}, 30_000);

it('ends a process whose exit hangs on a thread-pool thread (after every JavaScript thread is gone)', async () => {
  const fifo = path.join(dir, 'no-writer');
  execFileSync('mkfifo', [fifo]);
  const { ended, out } = run(`${prelude}
import { open } from 'node:fs';
// Opening a FIFO nobody writes to blocks one of libuv's threads, and process.exit waits for it.
open(${JSON.stringify(fifo)}, 'r', () => {});
startWatchdog(1500);
setTimeout(() => process.exit(0), 100);`);
  const result = await ended;
  const browser = Number(/browser (\d+)/.exec(out())?.[1]);
  try {
    expect(result.signal).toBe('SIGKILL');
    expect(result.ms).toBeLessThan(1500 + 3000);
    expect(listProcesses().filter((p) => p.pgid === browser && p.state !== 'Z')).toEqual([]);
  } finally {
    if (browser > 0) killGroup(browser);
  }
}, 30_000);

it('a process that exits in time keeps its status; the watchdog leaves, ending the browser groups it was given', async () => {
  const { ended, out } = run(`${prelude}
startWatchdog(20_000, [browser.pid]);
setTimeout(() => process.exit(3), 300);`);
  const result = await ended;
  const browser = Number(/browser (\d+)/.exec(out())?.[1]);
  try {
    expect(result).toMatchObject({ code: 3, signal: null });
    const end = Date.now() + 5000;
    while (listProcesses().some((p) => p.pgid === browser && p.state !== 'Z') && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(listProcesses().filter((p) => p.pgid === browser && p.state !== 'Z')).toEqual([]);
  } finally {
    if (browser > 0) killGroup(browser);
  }
}, 30_000);
