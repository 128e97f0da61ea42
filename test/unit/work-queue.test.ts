import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { createSingleFlight } from '../../src/lib/single-flight.js';
import { createWorkQueue } from '../../src/lib/work-queue.js';

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

describe('work queue', () => {
  it('runs at most `concurrency` tasks and refuses past the queue with 503', async () => {
    const q = createWorkQueue({ name: 'test renderer', concurrency: 2, maxWaiting: 1 });
    const gate = deferred();
    let running = 0;
    let peak = 0;
    const task = async () => {
      running++;
      peak = Math.max(peak, running);
      await gate.promise;
      running--;
      return 'ok';
    };
    const accepted = [q.run(task), q.run(task), q.run(task)];
    await expect(q.run(task)).rejects.toMatchObject({ code: 'unavailable', retryAfter: 1 });
    expect(q.active).toBe(2);
    expect(q.waiting).toBe(1);
    gate.resolve();
    expect(await Promise.all(accepted)).toEqual(['ok', 'ok', 'ok']);
    expect(peak).toBe(2);
    expect(q.active).toBe(0);
  });

  it('frees a waiting place when its caller aborts', async () => {
    const q = createWorkQueue({ name: 'r', concurrency: 1, maxWaiting: 1 });
    const gate = deferred();
    const first = q.run(() => gate.promise);
    const ac = new AbortController();
    const waiting = q.run(async () => 'never', ac.signal);
    ac.abort(new Error('client went away'));
    await expect(waiting).rejects.toThrow('client went away');
    expect(q.waiting).toBe(0);
    gate.resolve();
    await first;
  });

  it('close() refuses waiting tasks and waits for running ones', async () => {
    const q = createWorkQueue({ name: 'r', concurrency: 1, maxWaiting: 5 });
    const gate = deferred();
    let finished = false;
    const running = q.run(async () => {
      await gate.promise;
      finished = true;
    });
    const waiting = q.run(async () => 'x');
    const closing = q.close();
    await expect(waiting).rejects.toBeInstanceOf(AppError);
    gate.resolve();
    await closing;
    await running;
    expect(finished).toBe(true);
    await expect(q.run(async () => 1)).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('a failing task releases its slot', async () => {
    const q = createWorkQueue({ name: 'r', concurrency: 1, maxWaiting: 0 });
    await expect(q.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await q.run(async () => 5)).toBe(5);
  });
});

describe('single flight', () => {
  it('shares one running task between identical keys, and not across keys', async () => {
    const sf = createSingleFlight<number>();
    let calls = 0;
    const gate = deferred();
    const task = async () => {
      calls++;
      await gate.promise;
      return calls;
    };
    const a = sf.do('k', task);
    const b = sf.do('k', task);
    const c = sf.do('other', task);
    gate.resolve();
    const [ra, rb, rc] = await Promise.all([a, b, c]);
    expect(ra.shared).toBe(false);
    expect(rb.shared).toBe(true);
    expect(rb.value).toBe(ra.value);
    expect(rc.shared).toBe(false);
    expect(calls).toBe(2);
    expect(sf.size).toBe(0);
  });

  it('shares a failure, then lets the next call retry', async () => {
    const sf = createSingleFlight<number>();
    const fail = sf.do('k', async () => Promise.reject(new Error('nope')));
    const join = sf.do('k', async () => 1);
    await expect(fail).rejects.toThrow('nope');
    await expect(join).rejects.toThrow('nope');
    expect((await sf.do('k', async () => 2)).value).toBe(2);
  });

  /** A task that waits for `gate` and keeps the signal the single-flight gave it. */
  const gatedTask = () => {
    const gate = deferred();
    const seen: { signal?: AbortSignal } = {};
    const task = async (signal: AbortSignal) => {
      seen.signal = signal;
      await gate.promise;
      return 'done';
    };
    return { gate, seen, task };
  };

  it('lets a caller leave at once, and aborts the task only when every caller has left', async () => {
    const sf = createSingleFlight<string>();
    const { gate, seen, task } = gatedTask();
    const first = new AbortController();
    const second = new AbortController();
    const a = sf.do('k', task, first.signal);
    const b = sf.do('k', task, second.signal);
    first.abort(new Error('first left'));
    await expect(a).rejects.toThrow('first left');
    expect(seen.signal?.aborted).toBe(false); // the second caller still wants it
    second.abort(new Error('second left'));
    await expect(b).rejects.toThrow('second left');
    expect(seen.signal?.aborted).toBe(true);
    expect(seen.signal?.reason).toEqual(new Error('second left'));
    gate.resolve();
  });

  it('starts afresh for a caller who arrives after every caller of a task has left', async () => {
    const sf = createSingleFlight<string>();
    const abandoned = gatedTask();
    const leaving = new AbortController();
    const left = sf.do('k', abandoned.task, leaving.signal);
    leaving.abort(new Error('left'));
    await expect(left).rejects.toThrow('left');
    // The abandoned task is still winding down; a new caller must not inherit its abort.
    const fresh = await sf.do('k', async () => 'new');
    expect(fresh).toEqual({ value: 'new', shared: false });
    abandoned.gate.resolve();
  });

  it('never aborts a task a caller without a signal waits for', async () => {
    const sf = createSingleFlight<string>();
    const { gate, seen, task } = gatedTask();
    const leaving = new AbortController();
    const stays = sf.do('k', task);
    const leaves = sf.do('k', task, leaving.signal);
    leaving.abort(new Error('left'));
    await expect(leaves).rejects.toThrow('left');
    gate.resolve();
    expect(await stays).toEqual({ value: 'done', shared: false });
    expect(seen.signal?.aborted).toBe(false);
  });
});
