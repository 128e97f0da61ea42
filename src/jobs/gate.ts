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

/** The queues items wait on: a site page's item is a card once its page is read, so it waits on the cards'. */
type QueueKind = Exclude<ItemKind, 'site-page'>;

/** What the gate reads of a render queue. */
export interface QueueLoad {
  active: number;
  waiting: number;
  concurrency: number;
}

export interface PriorityGate {
  /**
   * Resolves when an item of `kind` may render, with the function to call once it has (in a
   * `finally`); rejects when `signal` aborts. With `account`, a slot that frees goes first to
   * the waiting item whose account has the fewest items past the gate (a small job behind
   * another account's thousands does not wait behind the item they already have waiting).
   */
  turn(kind: ItemKind, signal: AbortSignal, account?: string): Promise<() => void>;
}

const KINDS: readonly QueueKind[] = ['card', 'screenshot'];
/** How often a waiting item looks again for requests that have gone. */
const LOOK_EVERY_MS = 5;
/** Requests seen this recently keep one slot free of items. */
const REQUESTS_LINGER_MS = 1000;

export function createPriorityGate(
  load: Record<QueueKind, () => QueueLoad>,
  now: () => number = () => performance.now(),
): PriorityGate {
  interface Lane {
    items: number;
    /** Items past the gate, by account. */
    byAccount: Map<string, number>;
    requestsSeenAt: number;
    /** Items waiting, with their account ('' when none was given). */
    waiting: Map<() => void, string>;
  }
  const lanes = new Map<QueueKind, Lane>();
  const lane = (item: ItemKind) => {
    const kind: QueueKind = item === 'site-page' ? 'card' : item;
    let l = lanes.get(kind);
    if (!l) {
      l = { items: 0, byAccount: new Map(), requestsSeenAt: Number.NEGATIVE_INFINITY, waiting: new Map() };
      lanes.set(kind, l);
    }
    return l;
  };
  const inLane = (l: Lane, account: string) => l.byAccount.get(account) ?? 0;

  const mayStart = (item: ItemKind, account: string): boolean => {
    const kind: QueueKind = item === 'site-page' ? 'card' : item;
    const l = lane(kind);
    // Another account with fewer items past the gate waits too: the slot is its.
    const mine = inLane(l, account);
    for (const other of l.waiting.values()) {
      if (other !== account && inLane(l, other) < mine) return false;
    }
    const q = load[kind]();
    // What a queue holds beyond this node's items is requests (approximately: an item past
    // the gate may still be preparing, not yet in the queue, and hide a request meanwhile).
    // Both kinds count: a capture and a card draw on the same cores, so card items also wait
    // while a screenshot request runs (and the other way round).
    const requests = KINDS.reduce((n, k) => {
      const kq = k === kind ? q : load[k]();
      return n + Math.max(0, kq.waiting + kq.active - lane(k).items);
    }, 0);
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
    async turn(kind, signal, account = '') {
      const l = lane(kind);
      if (!mayStart(kind, account)) {
        let wake = () => {};
        const waiter = () => wake();
        l.waiting.set(waiter, account);
        try {
          while (!mayStart(kind, account)) {
            signal.throwIfAborted();
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, LOOK_EVERY_MS);
              wake = () => {
                clearTimeout(timer);
                resolve();
              };
            });
          }
        } finally {
          l.waiting.delete(waiter);
        }
      }
      l.items++;
      l.byAccount.set(account, inLane(l, account) + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        l.items--;
        const left = inLane(l, account) - 1;
        if (left > 0) l.byAccount.set(account, left);
        else l.byAccount.delete(account);
        // Waiters look now rather than at their next poll (no slot idles between items); which
        // one takes the slot is mayStart's choice.
        for (const wake of [...l.waiting.keys()]) wake();
      };
    },
  };
}

/** The gate's view of the node's card queue and screenshot service. */
export function nodeLoad(
  renderQueue: QueueLoad,
  screenshots: Pick<ScreenshotService, 'status'>,
): Record<QueueKind, () => QueueLoad> {
  return { card: () => renderQueue, screenshot: () => screenshots.status().queue };
}
