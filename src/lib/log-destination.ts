import { writeSync } from 'node:fs';

/**
 * Where the server's JSON log lines go: a file descriptor (stdout) written without ever
 * blocking the process for long. pino's default destination (sonic-boom) retries a failed
 * write every 100 ms for ever in its exit-time flush, EPIPE included, so a server whose log
 * reader had gone never finished exiting (/work/shared/notes/shutdown-hang.md). Here:
 *
 * - a line is written at once when the descriptor takes it (order is kept);
 * - a full pipe (EAGAIN) queues lines in memory up to `maxQueuedBytes` and retries on a timer;
 *   past that, lines are dropped and counted, and the count is logged once it drains;
 * - any other error (EPIPE: the reader is gone, EBADF: closed) turns logging off for good;
 * - `flushSync(ms)` (at exit) writes what is queued, waiting on EAGAIN for at most `ms`.
 *
 * The descriptor must be non-blocking for a full pipe to answer EAGAIN instead of stopping the
 * thread: Node makes stdout so when it is a pipe or socket (see `stdoutDestination`).
 */
export interface LogDestination {
  write(line: string): void;
  /** Writes what is queued, retrying EAGAIN for at most `ms`; never throws. */
  flushSync(ms: number): void;
  /** Lines not written: dropped while the queue was full, or after the descriptor failed. */
  readonly dropped: number;
  /** True once a write failed with something other than EAGAIN (logging is off). */
  readonly broken: boolean;
}

export function createFdDestination(
  fd: number,
  opts: { maxQueuedBytes?: number; retryMs?: number } = {},
): LogDestination {
  const maxQueued = opts.maxQueuedBytes ?? 4 * 1024 * 1024;
  const retryMs = opts.retryMs ?? 20;
  let queue: Buffer[] = [];
  let queued = 0;
  let dropped = 0;
  let droppedSinceReport = 0;
  let broken = false;
  let timer: NodeJS.Timeout | undefined;

  const fail = () => {
    broken = true;
    dropped += queue.length;
    queue = [];
    queued = 0;
  };

  /** Writes the queue; false when the descriptor is full (EAGAIN) with lines left. */
  const drain = (): boolean => {
    while (queue.length > 0) {
      const head = queue[0]!;
      let n: number;
      try {
        n = writeSync(fd, head);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN' || code === 'EWOULDBLOCK' || code === 'EINTR') return false;
        fail();
        return true;
      }
      queued -= n;
      if (n < head.length) queue[0] = head.subarray(n);
      else queue.shift();
    }
    if (droppedSinceReport > 0) {
      const note = `${JSON.stringify({
        level: 40,
        time: Date.now(),
        service: 'cardshot',
        dropped: droppedSinceReport,
        msg: 'log lines dropped: stdout was not being read',
      })}\n`;
      droppedSinceReport = 0;
      const buf = Buffer.from(note);
      queue.push(buf);
      queued += buf.length;
      return drain();
    }
    return true;
  };

  const schedule = () => {
    if (timer || broken) return;
    timer = setTimeout(() => {
      timer = undefined;
      if (!drain()) schedule();
    }, retryMs);
    // A queued line never keeps the process alive: the exit flush writes what it can.
    timer.unref();
  };

  return {
    write(line) {
      if (broken) {
        dropped++;
        return;
      }
      const buf = Buffer.from(line);
      if (queue.length > 0 && queued + buf.length > maxQueued) {
        dropped++;
        droppedSinceReport++;
        return;
      }
      queue.push(buf);
      queued += buf.length;
      if (queue.length === 1 && !drain()) schedule();
    },
    flushSync(ms) {
      const deadline = Date.now() + ms;
      const pause = new Int32Array(new SharedArrayBuffer(4));
      while (!broken && !drain()) {
        const left = deadline - Date.now();
        if (left <= 0) break;
        Atomics.wait(pause, 0, 0, Math.min(10, left));
      }
    },
    get dropped() {
      return dropped;
    },
    get broken() {
      return broken;
    },
  };
}

let stdout: LogDestination | undefined;

/**
 * The process's stdout as a log destination (one per process), flushed for at most 500 ms at
 * exit. Touching `process.stdout` first makes a pipe or socket non-blocking (libuv does), so a
 * reader that stops reading costs queued lines, not a stuck server; its 'error' events (EPIPE
 * on a banner written straight to it) are absorbed, not thrown.
 */
export function stdoutDestination(): LogDestination {
  if (stdout) return stdout;
  process.stdout.on('error', () => {});
  process.stderr.on('error', () => {});
  const dest = createFdDestination(process.stdout.fd ?? 1);
  process.once('exit', () => dest.flushSync(500));
  stdout = dest;
  return dest;
}
