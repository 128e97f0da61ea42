/**
 * Synchronous requests first (issue 28 §3). A job's item starts rendering only while no
 * request renders or waits on this node, and while requests have come in the last second items
 * leave one slot to them: a request then finds a slot (and a core) free instead of waiting for
 * an item to finish. Items already rendering finish. With no request around, items use every slot (a job alone runs as fast
 * as requests would). An item that ends wakes the next one at once; a short poll notices the
 * requests coming and going.
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
  /**
   * Resolves when an item of `kind` may render, with the function to call once it has (in a
   * `finally`); rejects when `signal` aborts.
   */
  turn(kind: ItemKind, signal: AbortSignal): Promise<() => void>;
}

/** How often a waiting item looks again for requests that have gone. */
const LOOK_EVERY_MS = 5;
/** Requests seen this recently keep one slot free of items. */
const REQUESTS_LINGER_MS = 1000;

export function createPriorityGate(
  load: Record<ItemKind, () => QueueLoad>,
  now: () => number = () => performance.now(),
): PriorityGate {
  const lanes = new Map<ItemKind, { items: number; requestsSeenAt: number; wake: Set<() => void> }>();
  const lane = (kind: ItemKind) => {
    let l = lanes.get(kind);
    if (!l) {
      l = { items: 0, requestsSeenAt: Number.NEGATIVE_INFINITY, wake: new Set() };
      lanes.set(kind, l);
    }
    return l;
  };

  const mayStart = (kind: ItemKind): boolean => {
    const l = lane(kind);
    const q = load[kind]();
    // What the queue holds beyond this node's items is requests (approximately: an item past
    // the gate may still be preparing, not yet in the queue, and hide a request meanwhile).
    const requests = Math.max(0, q.waiting + q.active - l.items);
    if (requests > 0) {
      // A request renders or waits: it has the node's cores to itself until it ends.
      l.requestsSeenAt = now();
      return false;
    }
    if (now() - l.requestsSeenAt < REQUESTS_LINGER_MS) {
      return q.active < q.concurrency && l.items < Math.max(1, q.concurrency - 1);
    }
    // No request around: every slot, and one item more preparing (its artwork, its cache
    // lookup) so a slot that frees does not idle while the next item gets ready.
    return l.items < q.concurrency + 1;
  };

  return {
    async turn(kind, signal) {
      const l = lane(kind);
      while (!mayStart(kind)) {
        signal.throwIfAborted();
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            l.wake.delete(done);
            resolve();
          };
          const timer = setTimeout(done, LOOK_EVERY_MS);
          l.wake.add(done);
        });
      }
      l.items++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        l.items--;
        // The first waiter looks now rather than at its next poll: no slot idles between items.
        const first = l.wake.values().next().value;
        first?.();
      };
    },
  };
}

/** The gate's view of the node's card queue and screenshot service. */
export function nodeLoad(
  renderQueue: QueueLoad,
  screenshots: Pick<ScreenshotService, 'status'>,
): Record<ItemKind, () => QueueLoad> {
  return { card: () => renderQueue, screenshot: () => screenshots.status().queue };
}
