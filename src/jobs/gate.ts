/**
 * Synchronous requests first (issue 28 §3): a job's item enters a render queue only when no
 * request waits there and a slot is free, so a request arriving meanwhile waits at most for the
 * items already rendering (one render), never behind a job's thousands.
 */
import type { ScreenshotService } from '../render/screenshot/types.js';
import type { ItemKind } from './store/types.js';

/** What the gate reads of a render queue. */
export interface QueueLoad {
  active: number;
  waiting: number;
  concurrency: number;
}

export interface PriorityGate {
  /** Resolves when an item of `kind` may take a render slot; rejects when `signal` aborts. */
  turn(kind: ItemKind, signal: AbortSignal): Promise<void>;
}

/** How often a waiting item looks again: short beside a card's ~15 ms render. */
const LOOK_EVERY_MS = 5;

export function createPriorityGate(load: { card(): QueueLoad; screenshot(): QueueLoad }): PriorityGate {
  const free = (q: QueueLoad) => q.waiting === 0 && q.active < q.concurrency;
  return {
    async turn(kind, signal) {
      const read = kind === 'card' ? load.card : load.screenshot;
      while (!free(read())) {
        signal.throwIfAborted();
        await new Promise((resolve) => setTimeout(resolve, LOOK_EVERY_MS));
      }
    },
  };
}

/** The gate over the node's card queue and screenshot service. */
export function nodeLoad(renderQueue: QueueLoad, screenshots: Pick<ScreenshotService, 'status'>) {
  return { card: () => renderQueue, screenshot: () => screenshots.status().queue };
}
