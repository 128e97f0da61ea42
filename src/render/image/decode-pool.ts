/**
 * Decoding users' images in small, killable child processes (issue 26 §1). In the server,
 * sharp's work ran on libuv's thread pool, which scrypt, fs and DNS share: two slow images
 * held it long enough for a dashboard sign-in to take 41.9 s, and what libpng allocated for
 * metadata was never given back. Here each job runs in a warm child (sharp's cache off, one
 * libvips thread) whose CPU time and resident memory are read from /proc every few
 * milliseconds; past either limit the child is SIGKILLed, the job fails with a
 * DecodeLimitError and the next job gets a new child. A child that kept memory after a job
 * is replaced too, so memory goes back to the system.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { AppError } from '../../errors.js';
import { createWorkQueue } from '../../lib/work-queue.js';
import { DECODE_CHILD_CODE } from './decode-child.js';
import { cpuMsOf, rssOf } from './proc-usage.js';

/** sharp's input options that a job may give. */
export interface DecodeInput {
  limitInputPixels?: number | false;
  failOn?: 'none' | 'truncated' | 'error' | 'warning';
  pages?: number;
  page?: number;
}

/** One sharp call of a pipeline: a method name (whitelisted in the child) and its arguments. */
export type DecodeStep = [
  method: 'autoOrient' | 'extract' | 'resize' | 'extend' | 'ensureAlpha' | 'png',
  ...args: unknown[],
];

/** The header fields the artwork and logo code read. */
export interface DecodedMeta {
  format?: string;
  width?: number;
  height?: number;
  pageHeight?: number;
  pages?: number;
  orientation?: number;
}

/**
 * A job stopped by a limit: `time` (its CPU time), `memory`, `stalled` (the wall-clock backstop:
 * a starved machine, not the image's fault), or the child died (`crash`).
 */
export class DecodeLimitError extends Error {
  constructor(
    readonly limit: 'time' | 'memory' | 'stalled' | 'crash',
    detail: string,
  ) {
    super(detail);
    this.name = 'DecodeLimitError';
  }
}

export interface ImageDecoder {
  /** The header of `bytes`, read in a child. */
  metadata(bytes: Uint8Array, input: DecodeInput, account?: string): Promise<DecodedMeta>;
  /** Runs `steps` over `bytes` in a child; the output buffer and its size. */
  transform(
    bytes: Uint8Array,
    input: DecodeInput,
    steps: DecodeStep[],
    account?: string,
  ): Promise<{ data: Buffer; width: number; height: number }>;
  /** The limits, for messages. */
  readonly limits: { cpuMs: number; memoryBytes: number };
  /** Children alive, jobs running and waiting, children killed by a limit (metrics, tests). */
  stats(): {
    children: number;
    running: number;
    waiting: number;
    workers: number;
    killed: number;
    pids: number[];
  };
  close(): Promise<void>;
}

export interface DecodePoolOptions {
  /** Children (decodes at once) on this node. */
  workers: number;
  /** CPU time one job may use. */
  cpuMs: number;
  /** Resident memory one job may add to its child. */
  memoryBytes: number;
  /** Wall-clock backstop for a job (a starved or stopped child); default 10 × cpuMs, at least 5 s. */
  wallMs?: number;
  /** How often a running job's child is measured. */
  pollMs?: number;
  /** Jobs waiting on the node; one more is refused with 503. */
  maxWaiting?: number;
  /** Jobs waiting per account (one runs at a time; default 8, more than its 4 downloads); one more is refused with 429. */
  maxWaitingPerAccount?: number;
  /** The child's code (tests give one that hangs or grows). */
  childCode?: string;
  /** Told each time a child is killed by a limit (metrics). */
  onKill?: (limit: 'time' | 'memory') => void;
}

interface Child {
  proc: ChildProcess;
  pid: number;
  ready: Promise<void>;
  /** Resident bytes once sharp was loaded and before any job. */
  idleRss: number;
  busy: boolean;
}

type Reply = {
  id: number;
  error?: string;
  meta?: DecodedMeta;
  data?: Uint8Array;
  width?: number;
  height?: number;
};

const SHARP_PATH = createRequire(import.meta.url).resolve('sharp');

/** Creates the pool; no child starts until the first job. */
export function createDecodePool(opts: DecodePoolOptions): ImageDecoder {
  const pollMs = opts.pollMs ?? 10;
  const wallMs = opts.wallMs ?? Math.max(5000, opts.cpuMs * 10);
  const code = opts.childCode ?? DECODE_CHILD_CODE;
  const children: Child[] = [];
  let seq = 0;
  let killed = 0;
  let closed = false;
  const queue = createWorkQueue({
    name: 'image decoder',
    concurrency: opts.workers,
    maxWaiting: opts.maxWaiting ?? 64,
  });
  const shareOf = (account: string) => ({
    id: account,
    concurrency: 1,
    maxWaiting: opts.maxWaitingPerAccount ?? 8,
    overShare: () =>
      new AppError('rate_limited', 'Too many images being decoded at once for this account; retry shortly', {
        retryAfter: 1,
      }),
  });

  function start(): Child {
    const proc = spawn(process.execPath, ['-e', code, SHARP_PATH], {
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'advanced',
      // Fewer malloc arenas: glibc's default (8 per core) kept freed image memory resident.
      env: { MALLOC_ARENA_MAX: '2' },
    });
    const child: Child = { proc, pid: proc.pid ?? 0, idleRss: 0, busy: false, ready: Promise.resolve() };
    child.ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('decode child did not start in 10 s')), 10_000);
      proc.once('message', () => {
        clearTimeout(timer);
        child.idleRss = rssOf(child.pid);
        resolve();
      });
      proc.once('exit', (status, signal) => {
        clearTimeout(timer);
        reject(new Error(`decode child exited (${signal ?? status}) before it was ready`));
      });
      proc.once('error', reject);
    });
    child.ready.catch(() => drop(child));
    proc.on('exit', () => drop(child));
    proc.on('error', () => {});
    proc.unref();
    (proc.channel as { unref?: () => void } | undefined)?.unref?.();
    children.push(child);
    return child;
  }

  function drop(child: Child, signal: NodeJS.Signals = 'SIGKILL'): void {
    const i = children.indexOf(child);
    if (i >= 0) children.splice(i, 1);
    if (child.proc.exitCode === null && child.proc.signalCode === null) child.proc.kill(signal);
  }

  function exec(child: Child, job: Record<string, unknown>): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      const id = ++seq;
      const cpu0 = cpuMsOf(child.pid);
      const rss0 = rssOf(child.pid);
      const t0 = performance.now();
      const finish = () => {
        clearInterval(timer);
        child.proc.off('message', onMessage);
        child.proc.off('exit', onExit);
      };
      const stop = (limit: 'time' | 'memory' | 'stalled', detail: string) => {
        finish();
        killed++;
        drop(child);
        if (limit !== 'stalled') opts.onKill?.(limit);
        reject(new DecodeLimitError(limit, detail));
      };
      const timer = setInterval(() => {
        const cpu = cpuMsOf(child.pid) - cpu0;
        const grown = rssOf(child.pid) - rss0;
        const wall = performance.now() - t0;
        if (cpu > opts.cpuMs) stop('time', `${cpu} ms of CPU`);
        else if (wall > wallMs) stop('stalled', `${Math.round(wall)} ms of wall time, ${cpu} ms of CPU`);
        else if (grown > opts.memoryBytes) stop('memory', `${Math.round(grown / 1e6)} MB grown`);
      }, pollMs);
      const onMessage = (m: Reply) => {
        if (m.id !== id) return;
        finish();
        if (m.error !== undefined) reject(new Error(m.error));
        else resolve(m);
      };
      const onExit = (status: number | null, signal: string | null) => {
        finish();
        reject(new DecodeLimitError('crash', `decode child exited (${signal ?? status})`));
      };
      child.proc.on('message', onMessage);
      child.proc.on('exit', onExit);
      // A child that died just before (its exit not yet seen) fails the job now, not at the backstop.
      if (!child.proc.connected) return onExit(child.proc.exitCode, child.proc.signalCode);
      child.proc.send({ id, ...job }, (err) => {
        if (err) onExit(child.proc.exitCode, child.proc.signalCode);
      });
    });
  }

  const shuttingDown = () => new AppError('unavailable', 'The image decoder is shutting down; retry shortly');

  async function run(job: Record<string, unknown>, account: string | undefined): Promise<Reply> {
    if (closed) throw shuttingDown();
    return queue
      .run(
        async () => {
          // The queue runs at most `workers` jobs, so an idle child or room for one is always there.
          const child = children.find((c) => !c.busy) ?? start();
          child.busy = true;
          try {
            await child.ready;
            return await exec(child, job);
          } finally {
            child.busy = false;
            // Memory libvips or malloc kept after the job goes back with the child.
            if (children.includes(child) && rssOf(child.pid) - child.idleRss > opts.memoryBytes / 2) {
              drop(child, 'SIGTERM');
            }
          }
        },
        undefined,
        account === undefined ? undefined : shareOf(account),
      )
      .catch((err: unknown) => {
        // A job ended by close() is not the image's fault: 503, not 422.
        throw closed ? shuttingDown() : err;
      });
  }

  return {
    limits: { cpuMs: opts.cpuMs, memoryBytes: opts.memoryBytes },

    async metadata(bytes, input, account) {
      const reply = await run({ op: 'metadata', bytes: own(bytes), input }, account);
      return reply.meta ?? {};
    },

    async transform(bytes, input, steps, account) {
      const reply = await run({ op: 'transform', bytes: own(bytes), input, steps }, account);
      const data = reply.data ?? new Uint8Array();
      return {
        data: Buffer.from(data.buffer, data.byteOffset, data.byteLength),
        width: reply.width ?? 0,
        height: reply.height ?? 0,
      };
    },

    stats() {
      return {
        children: children.length,
        running: queue.active,
        waiting: queue.waiting,
        workers: opts.workers,
        killed,
        pids: children.map((c) => c.pid),
      };
    },

    async close() {
      closed = true;
      // Children first: a running job then fails at once instead of holding close() up.
      for (const child of [...children]) drop(child);
      await queue.close();
    },
  };
}

/** A view the size of its own memory: structured clone sends a typed array's whole buffer. */
function own(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
}
