import { describe, expect, it } from 'vitest';
import { createPriorityGate, type QueueLoad } from '../../src/jobs/gate.js';

// The gate's policy over a render queue whose load the test sets (the queue itself is tested in
// work-queue.test.ts); time is the test's clock.
function setup() {
  const q: QueueLoad = { active: 0, waiting: 0, concurrency: 2 };
  const shots: QueueLoad = { active: 0, waiting: 0, concurrency: 2 };
  let t = 0;
  const gate = createPriorityGate({ card: () => q, screenshot: () => shots }, () => t);
  const signal = new AbortController().signal;
  const started = (p: Promise<unknown>) =>
    Promise.race([p.then(() => true), new Promise((r) => setTimeout(() => r(false), 30))]);
  return { q, shots, gate, signal, started, advance: (ms: number) => (t += ms) };
}

describe('priority gate', () => {
  it('lets items use every slot, and one more preparing, when no request is around', async () => {
    const { q, gate, signal, started } = setup();
    const a = await gate.turn('card', signal);
    q.active = 1;
    const b = await gate.turn('card', signal);
    q.active = 2;
    // One more gets ready while both slots render.
    const c = await gate.turn('card', signal);
    const fourth = gate.turn('card', signal);
    expect(await started(fourth)).toBe(false);
    // An item that ends wakes the next at once.
    a();
    expect(await started(fourth)).toBe(true);
    b();
    c();
  });

  it('starts no item while a request renders or waits, then leaves requests a slot for a second', async () => {
    const { q, gate, signal, started, advance } = setup();
    q.waiting = 1;
    q.active = 2;
    const held = gate.turn('card', signal);
    expect(await started(held)).toBe(false);
    // The request renders (nothing waits): still its cores.
    q.waiting = 0;
    q.active = 1;
    expect(await started(held)).toBe(false);
    // It ended: one item may start, the other slot stays free for the next request.
    q.active = 0;
    expect(await started(held)).toBe(true);
    const release = await held;
    q.active = 1;
    const second = gate.turn('card', signal);
    expect(await started(second)).toBe(false);
    // A second without requests: every slot again.
    advance(1001);
    expect(await started(second)).toBe(true);
    release();
    (await second)();
  });

  it('gives a freed slot to the waiting item of the account with fewer items past it, not the longest waiting', async () => {
    const { q, gate, signal, started } = setup();
    const a1 = await gate.turn('card', signal, 'acc_a');
    q.active = 1;
    const a2 = await gate.turn('card', signal, 'acc_a');
    q.active = 2;
    const a3 = await gate.turn('card', signal, 'acc_a');
    // A's fourth waits first, then B's first.
    const a4 = gate.turn('card', signal, 'acc_a');
    expect(await started(a4)).toBe(false);
    const b1 = gate.turn('card', signal, 'acc_b');
    expect(await started(b1)).toBe(false);
    a1();
    expect(await started(b1)).toBe(true);
    expect(await started(a4)).toBe(false);
    // B has one past the gate, A two: the next slot is still B's if it asks, else A's.
    a2();
    expect(await started(a4)).toBe(true);
    for (const r of [a3, await a4, await b1]) r();
  });

  it('holds card items while a screenshot request runs: the two share the cores', async () => {
    const { shots, gate, signal, started, advance } = setup();
    shots.active = 1;
    const held = gate.turn('card', signal, 'acc_a');
    expect(await started(held)).toBe(false);
    shots.active = 0;
    // The capture ended: a card item may start (one slot of two, for a second).
    expect(await started(held)).toBe(true);
    advance(1001);
    (await held)();
  });

  it('gives up waiting when its signal aborts', async () => {
    const { shots, gate } = setup();
    shots.waiting = 3;
    const stop = new AbortController();
    const waiting = gate.turn('screenshot', stop.signal);
    stop.abort(new Error('node stopping'));
    await expect(waiting).rejects.toThrow('node stopping');
  });
});
