import { afterAll, beforeAll } from 'vitest';
import {
  type ArtworkFetcher,
  type ArtworkOptions,
  createArtworkFetcher,
} from '../../src/render/image/artwork.js';
import { type FixtureServer, startFixtureServer } from './servers.js';

/**
 * A fixture image server for the file's tests, and a maker of artwork fetchers allowed to reach
 * it (each closed after the file, with the server). Call at the top level of a test file.
 */
export function useArtworkFixture(defaults: Partial<ArtworkOptions> = {}) {
  const state = { fx: undefined as unknown as FixtureServer };
  const open: ArtworkFetcher[] = [];
  beforeAll(async () => {
    state.fx = await startFixtureServer();
  });
  afterAll(async () => {
    await Promise.all(open.map((a) => a.close()));
    await state.fx.close();
  });
  return {
    /** The fixture server (set once the file's beforeAll ran). */
    get fx(): FixtureServer {
      return state.fx;
    },
    artwork(over: Partial<ArtworkOptions> = {}): ArtworkFetcher {
      const a = createArtworkFetcher({ allowPrivateHosts: [state.fx.hostPort], ...defaults, ...over });
      open.push(a);
      return a;
    },
  };
}
