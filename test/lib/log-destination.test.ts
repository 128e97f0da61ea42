// @module-tag process
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, expect, it } from 'vitest';
import { createFdDestination } from '../../src/lib/log-destination.js';

// A real pipe (a FIFO), written as the server writes its stdout: non-blocking.
let dir: string | undefined;
const fds: number[] = [];
function fifo(): { read: number; write: number } {
  dir = mkdtempSync(path.join(os.tmpdir(), 'cardshot-fifo-'));
  const file = path.join(dir, 'pipe');
  execFileSync('mkfifo', [file]);
  const read = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  const write = openSync(file, constants.O_WRONLY | constants.O_NONBLOCK);
  fds.push(read, write);
  return { read, write };
}
function readAll(fd: number): string {
  const buf = Buffer.alloc(1 << 20);
  let text = '';
  for (;;) {
    try {
      const n = readSync(fd, buf);
      if (n === 0) return text;
      text += buf.subarray(0, n).toString();
    } catch {
      return text; // EAGAIN: nothing more now
    }
  }
}
afterEach(() => {
  for (const fd of fds.splice(0)) {
    try {
      closeSync(fd);
    } catch {
      // closed by the test
    }
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('a reader that is gone (EPIPE): logging stops, nothing throws, the exit flush returns at once', () => {
  const { read, write } = fifo();
  closeSync(read);
  const dest = createFdDestination(write);
  const log = pino({ base: null }, dest);
  for (let i = 0; i < 100; i++) log.info({ i }, 'line');
  expect(dest.broken).toBe(true);
  const t0 = performance.now();
  dest.flushSync(5000);
  // pino's default destination retried this write every 100 ms for ever.
  expect(performance.now() - t0).toBeLessThan(100);
});

it('a full pipe: writes never block, the exit flush gives up after its time, lines come out in order once read', async () => {
  const { read, write } = fifo();
  const dest = createFdDestination(write, { maxQueuedBytes: 64 * 1024, retryMs: 5 });
  const log = pino({ base: null, timestamp: false }, dest);
  const t0 = performance.now();
  // ~300 KB: the 64 KiB pipe fills, 64 KiB queue, the rest dropped and counted.
  for (let i = 0; i < 3000; i++) log.info({ i, pad: 'x'.repeat(60) }, 'line');
  expect(performance.now() - t0).toBeLessThan(2000);
  expect(dest.dropped).toBeGreaterThan(0);

  const t1 = performance.now();
  dest.flushSync(300);
  const waited = performance.now() - t1;
  expect(waited).toBeGreaterThanOrEqual(250);
  expect(waited).toBeLessThan(1500);

  // A reader comes back: the queue drains on the timer, in order, then says what was dropped.
  let text = '';
  const end = Date.now() + 10_000;
  while (!text.includes('log lines dropped') && Date.now() < end) {
    text += readAll(read);
    await new Promise((r) => setTimeout(r, 10));
  }
  const lines = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { i?: number; msg: string; dropped?: number });
  const numbers = lines.filter((l) => l.i !== undefined).map((l) => l.i!);
  expect(numbers[0]).toBe(0);
  expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
  const note = lines.at(-1)!;
  expect(note.msg).toBe('log lines dropped: stdout was not being read');
  expect(note.dropped! + numbers.length).toBe(3000);
});
