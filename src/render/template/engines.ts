import type { Renderer } from '@takumi-rs/core';
import { fontBytes } from '../../fonts/family.js';
import type { CardFont } from './types.js';

/**
 * takumi engines with the accounts' uploaded fonts loaded on demand, bounded by bytes.
 *
 * takumi cannot unload a font (measured: 200 distinct 765 KB fonts grew RSS by 222 MB and it
 * stays), so a process that loaded every account's fonts for ever would grow without bound. The
 * pool loads a family into the current engine the first time a card needs it; once the families
 * loaded would pass `maxBytes`, it builds a fresh engine with the bundled fonts (~200 ms here)
 * and loads into that instead. The old engine is dropped when the renders holding it finish, and
 * families still in use are loaded again (a few ms each) the next time a card needs them.
 */
export interface EnginePool {
  /** The engine to draw with, `font` loaded into it first (none: the current engine). */
  acquire(font?: CardFont): Promise<Renderer>;
  /** Bytes of uploaded fonts in the current engine, for metrics and the bounds test. */
  readonly loadedBytes: number;
  /** Families in the current engine. */
  readonly loadedFamilies: number;
  /** Engines built past the first because the budget was reached. */
  readonly rebuilds: number;
}

interface Generation {
  engine: Renderer;
  loaded: Map<string, Promise<void>>;
  bytes: number;
}

/** Creates the pool over `first` (the bundled fonts loaded); `build` makes a fresh one like it. */
export function createEnginePool(opts: {
  first: Renderer;
  build: () => Promise<Renderer>;
  maxBytes: number;
}): EnginePool {
  let current: Generation = { engine: opts.first, loaded: new Map(), bytes: 0 };
  let rebuilding: Promise<void> | undefined;
  let rebuilds = 0;

  const rebuild = (from: Generation): Promise<void> => {
    rebuilding ??= (async () => {
      const engine = await opts.build();
      if (current === from) {
        current = { engine, loaded: new Map(), bytes: 0 };
        rebuilds++;
      }
    })().finally(() => {
      rebuilding = undefined;
    });
    return rebuilding;
  };

  const load = async (engine: Renderer, font: CardFont) => {
    for (const face of font.faces) {
      const variable = face.weightRange[0] !== face.weightRange[1];
      await engine.registerFont({
        name: font.engineName,
        data: face.data,
        // A variable font's weights come from its own axis; a static one is told its weight.
        ...(variable ? {} : { weight: face.weight }),
        style: face.italic ? 'italic' : 'normal',
      });
    }
  };

  return {
    async acquire(font) {
      for (;;) {
        const gen = current;
        if (!font) return gen.engine;
        const loading = gen.loaded.get(font.engineName);
        if (loading) {
          await loading;
          return gen.engine;
        }
        const size = fontBytes(font);
        if (gen.bytes + size <= opts.maxBytes || gen.loaded.size === 0) {
          const ready = load(gen.engine, font);
          gen.loaded.set(font.engineName, ready);
          gen.bytes += size;
          try {
            await ready;
          } catch (err) {
            gen.loaded.delete(font.engineName);
            gen.bytes -= size;
            throw err;
          }
          return gen.engine;
        }
        if (rebuilding) await rebuilding;
        else await rebuild(gen);
      }
    },
    get loadedBytes() {
      return current.bytes;
    },
    get loadedFamilies() {
      return current.loaded.size;
    },
    get rebuilds() {
      return rebuilds;
    },
  };
}
