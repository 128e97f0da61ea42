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

describe('work queue: a fair share per owner', () => {
  const owner = (id: string, concurrency = 1, maxWaiting = 2) => ({ id, concurrency, maxWaiting });

  it('a flooding owner gets 429 past its share while the queue still takes other owners', async () => {
    const q = createWorkQueue({ name: 'screenshot renderer', concurrency: 2, maxWaiting: 32 });
    const gate = deferred();
    const flood = Array.from({ length: 40 }, () =>
      q
        .run(() => gate.promise, undefined, owner('free'))
        .then(
          () => 'ok',
          (err: AppError) => `${err.code}:${err.retryAfter}`,
        ),
    );
    // One running and two waiting: its own limit, not the queue's; the rest refused at once.
    expect(q.active).toBe(1);
    expect(q.waiting).toBe(2);
    let otherRan = false;
    await q.run(
      async () => {
        otherRan = true;
      },
      undefined,
      owner('other'),
    );
    expect(otherRan).toBe(true);
    gate.resolve();
    const outcomes = await Promise.all(flood);
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(3);
    expect(outcomes.filter((o) => o === 'rate_limited:1')).toHaveLength(37);
  });

  it('always takes the first request of an owner with nothing running or waiting, even with the queue full', async () => {
    const q = createWorkQueue({ name: 'r', concurrency: 1, maxWaiting: 2 });
    const gate = deferred();
    const flood = [
      q.run(() => gate.promise, undefined, owner('a', 1, 1)),
      q.run(() => gate.promise, undefined, owner('a', 1, 1)),
      q.run(() => gate.promise, undefined, owner('b', 1, 1)),
    ];
    expect(q.waiting).toBe(2);
    // The queue is full of a's and b's work: c still gets its turn; work without an owner does not.
    const c = q.run(async () => 'c', undefined, owner('c'));
    expect(q.waiting).toBe(3);
    await expect(q.run(async () => 'anonymous')).rejects.toMatchObject({ code: 'unavailable' });
    gate.resolve();
    await Promise.all(flood);
    expect(await c).toBe('c');
  });

  it('uses the refusal the owner supplies', async () => {
    const q = createWorkQueue({ name: 'r', concurrency: 1, maxWaiting: 10 });
    const gate = deferred();
    const share = {
      ...owner('a', 1, 0),
      overShare: () => new AppError('rate_limited', 'your share', { retryAfter: 2 }),
    };
    const running = q.run(() => gate.promise, undefined, share);
    await expect(q.run(async () => 1, undefined, share)).rejects.toMatchObject({
      code: 'rate_limited',
      message: 'your share',
      retryAfter: 2,
    });
    gate.resolve();
    await running;
  });

  it('serves waiting owners round robin, not in arrival order', async () => {
    const q = createWorkQueue({ name: 'r', concurrency: 1, maxWaiting: 32 });
    const order: string[] = [];
    const gate = deferred();
    const first = q.run(() => gate.promise, undefined, owner('a', 1, 10));
    const tasks = [
      ...['a1', 'a2', 'a3'].map((n) => q.run(async () => void order.push(n), undefined, owner('a', 1, 10))),
      ...['b1', 'b2'].map((n) => q.run(async () => void order.push(n), undefined, owner('b', 1, 10))),
    ];
    gate.resolve();
    await Promise.all([first, ...tasks]);
    expect(order).toEqual(['a1', 'b1', 'a2', 'b2', 'a3']);
  });

  it('keeps an owner to its own concurrency even with slots free, and the global 503 still applies', async () => {
    const q = createWorkQueue({ name: 'r', concurrency: 4, maxWaiting: 1 });
    const gate = deferred();
    let peak = 0;
    let running = 0;
    const task = async () => {
      running++;
      peak = Math.max(peak, running);
      await gate.promise;
      running--;
    };
    const mine = [q.run(task, undefined, owner('a', 2, 5)), q.run(task, undefined, owner('a', 2, 5))];
    const queued = q.run(task, undefined, owner('a', 2, 5));
    expect(q.active).toBe(2);
    // The one waiting place of the queue is taken: another owner's waiting task gets the 503
    // (unless it is that owner's first: see below).
    const b = [q.run(task, undefined, owner('b', 2, 5)), q.run(task, undefined, owner('b', 2, 5))];
    expect(q.active).toBe(4);
    await expect(q.run(task, undefined, owner('b', 2, 5))).rejects.toMatchObject({ code: 'unavailable' });
    gate.resolve();
    await Promise.all([...mine, queued, ...b]);
    expect(peak).toBe(4);
    expect(q.active).toBe(0);
    expect(q.waiting).toBe(0);
  });

  it('an owner whose waiting caller aborts loses its place in the turn', async () => {
    const q = createWorkQueue({ name: 'r', concurrency: 1, maxWaiting: 5 });
    const gate = deferred();
    const first = q.run(() => gate.promise, undefined, owner('a'));
    const ac = new AbortController();
    const gone = q.run(async () => 'never', ac.signal, owner('b'));
    ac.abort(new Error('left'));
    await expect(gone).rejects.toThrow('left');
    expect(q.waiting).toBe(0);
    const later = q.run(async () => 'c', undefined, owner('c'));
    gate.resolve();
    await first;
    expect(await later).toBe('c');
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

// Issue 26 §2: two accounts each waiting out delay=10000 held both slots, and a third account's
// trivial capture waited 9.8 s behind them.
describe('work queue: a task that only waits lends its slot', () => {
  const owner = (id: string, concurrency = 1) => ({ id, concurrency, maxWaiting: 2 });

  it("slots held by waiting: two owners' waits do not delay a third owner's task", async () => {
    const q = createWorkQueue({ name: 'r', concurrency: 2, maxWaiting: 4 });
    const wait = deferred();
    const waiting = [
      q.run((slot) => slot.idle(wait.promise).then(() => 'waited'), undefined, owner('a')),
      q.run((slot) => slot.idle(wait.promise).then(() => 'waited'), undefined, owner('b')),
    ];
    await Promise.resolve();
    expect(q.parked).toBe(2);
    expect(q.active).toBe(0);
    // The victim starts at once, while both waits go on.
    expect(await q.run(async () => 'victim', undefined, owner('c'))).toBe('victim');
    wait.resolve();
    expect(await Promise.all(waiting)).toEqual(['waited', 'waited']);
    expect(q.parked).toBe(0);
    expect(q.active).toBe(0);
  });

  it("keeps the owner's share taken while it waits: no second page for the same account", async () => {
    const q = createWorkQueue({ name: 'r', concurrency: 2, maxWaiting: 4 });
    const wait = deferred();
    const first = q.run((slot) => slot.idle(wait.promise), undefined, owner('a'));
    await Promise.resolve();
    let secondStarted = false;
    const second = q.run(
      async () => {
        secondStarted = true;
      },
      undefined,
      owner('a'),
    );
    await new Promise((r) => setTimeout(r, 10));
    expect(secondStarted).toBe(false);
    expect(q.waiting).toBe(1);
    wait.resolve();
    await Promise.all([first, second]);
    expect(secondStarted).toBe(true);
  });

  it('lends at most maxParked slots; past it a waiting task keeps its slot', async () => {
    const q = createWorkQueue({ name: 'r', concurrency: 2, maxWaiting: 4, maxParked: 1 });
    const wait = deferred();
    const a = q.run((slot) => slot.idle(wait.promise), undefined, owner('a'));
    const b = q.run((slot) => slot.idle(wait.promise), undefined, owner('b'));
    await Promise.resolve();
    expect(q.parked).toBe(1);
    expect(q.active).toBe(1);
    wait.resolve();
    await Promise.all([a, b]);
    expect(q.active).toBe(0);
  });

  it('a task back from its wait takes the next free slot before tasks not yet started', async () => {
    const q = createWorkQueue({ name: 'r', concurrency: 1, maxWaiting: 4 });
    const wait = deferred();
    const busy = deferred();
    const order: string[] = [];
    const parkedTask = q.run(
      async (slot) => {
        await slot.idle(wait.promise);
        order.push('resumed');
      },
      undefined,
      owner('a'),
    );
    await Promise.resolve();
    const holder = q.run(() => busy.promise.then(() => void order.push('holder')), undefined, owner('b'));
    const later = q.run(async () => void order.push('later'), undefined, owner('c'));
    wait.resolve();
    await new Promise((r) => setTimeout(r, 10));
    // The wait is over but the only slot is held: it waits for it, first in line.
    expect(order).toEqual([]);
    busy.resolve();
    await Promise.all([parkedTask, holder, later]);
    expect(order).toEqual(['holder', 'resumed', 'later']);
  });

  it('a task that ends while its wait still runs leaks no slot (found: a page closed under a parked wait)', async () => {
    const q = createWorkQueue({ name: 'r', concurrency: 1, maxWaiting: 4 });
    const wait = deferred();
    // The task gives up on its wait (a race with the page going) and ends while parked.
    const gone = q.run((slot) =>
      Promise.race([slot.idle(wait.promise), Promise.reject(new Error('page closed'))]),
    );
    await expect(gone).rejects.toThrow('page closed');
    wait.resolve();
    await new Promise((r) => setTimeout(r, 10));
    expect(q.active).toBe(0);
    expect(q.parked).toBe(0);
    // The one slot is free: the next task runs, and close() does not wait for a ghost.
    expect(await q.run(async () => 'next')).toBe('next');
    await q.close();
  });

  it('a task that cannot get its slot back before its signal ends is rejected with the reason', async () => {
    const q = createWorkQueue({ name: 'r', concurrency: 1, maxWaiting: 4 });
    const busy = deferred();
    const ctl = new AbortController();
    const parkedTask = q.run((slot) => slot.idle(Promise.resolve()), ctl.signal, owner('a'));
    const holder = q.run(() => busy.promise, undefined, owner('b'));
    await Promise.resolve();
    const reason = new Error('deadline');
    setTimeout(() => ctl.abort(reason), 10);
    await expect(parkedTask).rejects.toBe(reason);
    busy.resolve();
    await holder;
    expect(q.active).toBe(0);
    expect(q.parked).toBe(0);
  });
});
