/**
 * Which contexts to keep ready: up to `limit` in all, made for the viewports requests name,
 * the oldest of another viewport evicted when the total is reached. Pure bookkeeping: making,
 * releasing and closing contexts is the pool's.
 *
 * Why spares: creating a context and page is the largest single cost of a warm capture (~200 ms
 * measured here, ~100 ms of it CPU in Chromium's browser process), so it is moved off the
 * request path. Isolation is unchanged: a context is handed to exactly one request and closed
 * after it.
 */
import type { Viewport } from '../../viewports.js';

export interface Spares<I, L> {
  /** How many are ready. */
  readonly size: number;
  /** Removes and returns a spare made for `key` in `instance`, if there is one. */
  take(key: string, instance: I): L | undefined;
  /**
   * Reserves the making of one more spare for `key`: null when it has enough (or none may be
   * made), else the spare of another viewport evicted to make room, if one had to be.
   */
  reserve(key: string): { evicted: L | undefined } | null;
  /** A reserved spare is ready: kept until taken. */
  add(key: string, instance: I, lease: L): void;
  /** A reserved spare was made or failed: it no longer counts as coming. */
  settle(key: string): void;
  /** Removes and returns the spares made in `instance` (lost or retired). */
  dropFor(instance: I): L[];
  /** Removes and returns every spare. */
  drain(): L[];
}

/** The key spares are kept by: everything about the viewport that changes the context. */
export function spareKey(v: Viewport): string {
  return `${v.name}:${v.width}x${v.height}@${v.scale}${v.mobile ? 'm' : ''}`;
}

/** Creates the policy for at most `limit` spares (0: none). */
export function createSpares<I, L>(limit: number): Spares<I, L> {
  const ready: { key: string; instance: I; lease: L }[] = [];
  const pending = new Map<string, number>();
  const pendingAll = () => [...pending.values()].reduce((a, b) => a + b, 0);

  function removeWhere(match: (s: { key: string; instance: I }) => boolean): L[] {
    const out: L[] = [];
    for (let i = ready.length - 1; i >= 0; i--) {
      if (match(ready[i]!)) out.push(ready.splice(i, 1)[0]!.lease);
    }
    return out;
  }

  return {
    get size() {
      return ready.length;
    },

    take(key, instance) {
      const at = ready.findIndex((s) => s.key === key && s.instance === instance);
      return at < 0 ? undefined : ready.splice(at, 1)[0]!.lease;
    },

    reserve(key) {
      const mine = ready.filter((s) => s.key === key).length + (pending.get(key) ?? 0);
      if (mine >= limit) return null;
      let evicted: L | undefined;
      if (ready.length + pendingAll() >= limit) {
        const victim = ready.findIndex((s) => s.key !== key);
        if (victim < 0) return null;
        evicted = ready.splice(victim, 1)[0]!.lease;
      }
      pending.set(key, (pending.get(key) ?? 0) + 1);
      return { evicted };
    },

    add(key, instance, lease) {
      ready.push({ key, instance, lease });
    },

    settle(key) {
      pending.set(key, (pending.get(key) ?? 1) - 1);
    },

    dropFor(instance) {
      return removeWhere((s) => s.instance === instance);
    },

    drain() {
      return ready.splice(0).map((s) => s.lease);
    },
  };
}
