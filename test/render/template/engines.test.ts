import type { Renderer } from '@takumi-rs/core';
import { describe, expect, it } from 'vitest';
import { createEnginePool } from '../../../src/render/template/engines.js';
import type { CardFont } from '../../../src/render/template/types.js';

// The pool's policy, over engines that only record what was registered in them (the real
// engine is exercised by test/themes/fonts-cards.test.ts and bench/fonts.ts).
function engine() {
  const names: string[] = [];
  return { names, registerFont: async (f: { name: string }) => void names.push(f.name) };
}

const font = (i: number, bytes = 1000): CardFont => ({
  family: `F${i}`,
  engineName: `cardshot-u-${i}`,
  hash: String(i),
  faces: [
    {
      sha256: String(i),
      data: Buffer.alloc(bytes),
      weight: 400,
      weightRange: [400, 400],
      italic: false,
      metrics: {
        codePoints: new Uint32Array(0),
        widths: new Uint16Array(0),
        weight: 400,
        weightRange: [400, 400],
        scales: {},
      },
    },
  ],
});

describe('the engine pool', () => {
  it('loads a family once, and builds a fresh engine when the budget would be passed', async () => {
    const built: ReturnType<typeof engine>[] = [];
    const first = engine();
    const pool = createEnginePool({
      first: first as unknown as Renderer,
      build: async () => {
        const e = engine();
        built.push(e);
        return e as unknown as Renderer;
      },
      maxBytes: 2500,
    });
    expect(await pool.acquire()).toBe(first);
    await pool.acquire(font(1));
    await pool.acquire(font(1));
    await pool.acquire(font(2));
    expect(first.names).toEqual(['cardshot-u-1', 'cardshot-u-2']);
    expect(pool.loadedBytes).toBe(2000);
    // A third would pass 2500 bytes: a fresh engine gets it; the old one keeps what it had.
    const third = await pool.acquire(font(3));
    expect(third).toBe(built[0]);
    expect(built[0]!.names).toEqual(['cardshot-u-3']);
    expect(pool.rebuilds).toBe(1);
    expect(pool.loadedBytes).toBe(1000);
    // A family from before the rebuild is loaded again into the new engine when next used.
    await pool.acquire(font(1));
    expect(built[0]!.names).toEqual(['cardshot-u-3', 'cardshot-u-1']);
  });

  it('one rebuild for many cards asking at once, and a family bigger than the budget still draws', async () => {
    let builds = 0;
    const pool = createEnginePool({
      first: engine() as unknown as Renderer,
      build: async () => {
        builds++;
        await new Promise((r) => setTimeout(r, 20));
        return engine() as unknown as Renderer;
      },
      maxBytes: 1500,
    });
    await pool.acquire(font(1));
    await Promise.all([pool.acquire(font(2)), pool.acquire(font(3)), pool.acquire(font(4))]);
    expect(builds).toBeLessThanOrEqual(3);
    expect(pool.loadedBytes).toBeLessThanOrEqual(1500);
    await pool.acquire(font(9, 5000));
    expect(pool.loadedFamilies).toBe(1);
  });
});
