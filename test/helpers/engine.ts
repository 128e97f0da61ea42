import type { Renderer } from '@takumi-rs/core';
import { loadTakumiEngine } from '../../src/render/template/renderer.js';

let shared: Promise<Renderer> | undefined;

/**
 * One takumi engine with every font registered, shared by the test apps and text tests of a
 * worker. Registering the ~700 font files is most of an app's start-up (0.3 to 0.8 s on the
 * 2-core machine): per app, it was a third of `npm run test:unit`. Sharing it shares no state a
 * card depends on: fonts never change, and takumi's image cache is keyed by content hash.
 */
export function sharedEngine(): Promise<Renderer> {
  shared ??= loadTakumiEngine();
  return shared;
}
