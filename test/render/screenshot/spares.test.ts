import { describe, expect, it } from 'vitest';
import { createSpares, spareKey } from '../../../src/render/screenshot/engine/browser/spares.js';

const A = { name: 'b1' };
const B = { name: 'b2' };
type FakeLease = { id: string };

describe('the spare-context policy', () => {
  it('keys spares by everything that shapes the context', () => {
    const og = { name: 'og', width: 1200, height: 630, scale: 1, mobile: false };
    expect(spareKey(og)).toBe('og:1200x630@1');
    expect(spareKey({ ...og, mobile: true })).toBe('og:1200x630@1m');
    expect(spareKey({ ...og, scale: 2 })).not.toBe(spareKey(og));
  });

  it('keeps none when the limit is 0', () => {
    const s = createSpares<typeof A, FakeLease>(0);
    expect(s.reserve('og')).toBeNull();
  });

  it('reserves up to the limit, counting spares still being made', () => {
    const s = createSpares<typeof A, FakeLease>(2);
    expect(s.reserve('og')).toEqual({ evicted: undefined });
    expect(s.reserve('og')).toEqual({ evicted: undefined });
    expect(s.reserve('og')).toBeNull();
    s.settle('og');
    s.add('og', A, { id: 'x' });
    expect(s.size).toBe(1);
    expect(s.reserve('og')).toBeNull();
    s.settle('og');
    expect(s.reserve('og')).toEqual({ evicted: undefined });
  });

  it('hands a spare only to its own viewport in its own browser', () => {
    const s = createSpares<typeof A, FakeLease>(2);
    s.reserve('og');
    s.settle('og');
    s.add('og', A, { id: 'x' });
    expect(s.take('mobile', A)).toBeUndefined();
    expect(s.take('og', B)).toBeUndefined();
    expect(s.take('og', A)).toEqual({ id: 'x' });
    expect(s.take('og', A)).toBeUndefined();
    expect(s.size).toBe(0);
  });

  it("evicts the oldest spare of another viewport for room, never one's own", () => {
    const s = createSpares<typeof A, FakeLease>(2);
    for (const id of ['og1', 'og2']) {
      s.reserve('og');
      s.settle('og');
      s.add('og', A, { id });
    }
    expect(s.reserve('og')).toBeNull();
    expect(s.reserve('mobile')).toEqual({ evicted: { id: 'og1' } });
    expect(s.size).toBe(1);
    // The one being made counts: a second mobile spare evicts the other og one.
    expect(s.reserve('mobile')).toEqual({ evicted: { id: 'og2' } });
    expect(s.reserve('mobile')).toBeNull();
  });

  it("evicts past its own viewport's spares to find another's", () => {
    const s = createSpares<typeof A, FakeLease>(2);
    for (const [key, id] of [
      ['og', 'og1'],
      ['mobile', 'm1'],
    ] as const) {
      s.reserve(key);
      s.settle(key);
      s.add(key, A, { id });
    }
    expect(s.reserve('og')).toEqual({ evicted: { id: 'm1' } });
    expect(s.take('og', A)).toEqual({ id: 'og1' });
  });

  it('gives up when the total is reached by spares still being made', () => {
    const s = createSpares<typeof A, FakeLease>(1);
    expect(s.reserve('og')).not.toBeNull();
    expect(s.reserve('mobile')).toBeNull();
  });

  it("drops a lost browser's spares and drains all on close", () => {
    const s = createSpares<typeof A, FakeLease>(3);
    for (const [inst, id] of [
      [A, 'a1'],
      [B, 'b1'],
      [A, 'a2'],
    ] as const) {
      s.reserve(id);
      s.settle(id);
      s.add(id, inst, { id });
    }
    expect(s.dropFor(A).map((l) => l.id)).toEqual(['a2', 'a1']);
    expect(s.size).toBe(1);
    expect(s.drain()).toEqual([{ id: 'b1' }]);
    expect(s.size).toBe(0);
  });
});
