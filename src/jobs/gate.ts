/**
 * Synchronous requests first (issue 28 §3). A job's item takes a render slot only when no
 * request waits for one, and while requests have been rendering on this node in the last
 * second, items leave one slot to them: a request then finds a slot free instead of waiting
 * for an item to finish. With no request around, items use every slot (a job alone runs as fast
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
    // Slots held by something other than this node's items are requests' (approximately: an
    // item past the gate may still be fetching its artwork, not yet in a slot).
    const requests = q.waiting + Math.max(0, q.active - l.items);
    if (requests > 0) l.requestsSeenAt = now();
    if (q.waiting > 0 || q.active >= q.concurrency) return false;
    const reserve = now() - l.requestsSeenAt < REQUESTS_LINGER_MS ? 1 : 0;
    return l.items < Math.max(1, q.concurrency - reserve);
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
