/**
 * Prepared artwork by content hash and target size (issue 26 §1): the same image on many cards
 * (one product photo, many titles) is decoded once, and an image refused once (a scan bomb that
 * ran into the CPU limit) is refused again without a second decode. Bounded by bytes in all and
 * per account, so one account's images cannot push every other account's out.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { AppError } from '../../errors.js';
import { createSingleFlight } from '../../lib/single-flight.js';
import type { ArtworkTarget, PreparedArtwork } from './artwork-image.js';

type Entry = { ok: PreparedArtwork; account: string } | { refused: AppError; account: string };

export interface PreparedCache {
  /** The prepared image for `bytes` at `target`, from the cache or from `prepare` (once per key at a time). */
  get(
    bytes: Buffer,
    target: ArtworkTarget,
    opts: { sha256?: string; account?: string },
    prepare: () => Promise<PreparedArtwork>,
  ): Promise<PreparedArtwork>;
  stats(): { entries: number; bytes: number };
  clear(): void;
}

/** A refusal is kept as its message only: about this much. */
const REFUSAL_BYTES = 256;

/** Creates the cache; `maxBytes` 0 turns it off. */
export function createPreparedCache(opts: { maxBytes: number; maxBytesPerAccount: number }): PreparedCache {
  const byAccount = new Map<string, number>();
  const sizeOf = (e: Entry) => ('ok' in e ? e.ok.data.length + 64 : REFUSAL_BYTES);
  const cache = new LRUCache<string, Entry>({
    maxSize: Math.max(1, opts.maxBytes),
    sizeCalculation: (e) => Math.max(1, sizeOf(e)),
    dispose: (e) => {
      const left = (byAccount.get(e.account) ?? 0) - sizeOf(e);
      if (left > 0) byAccount.set(e.account, left);
      else byAccount.delete(e.account);
    },
  });
  const flight = createSingleFlight<PreparedArtwork>();

  const store = (key: string, entry: Entry) => {
    if (opts.maxBytes <= 0) return;
    const size = sizeOf(entry);
    // Past its share an account's new images are prepared but not kept: they would only push
    // out other accounts' (and, by LRU, its own would not make room for them fairly).
    if ((byAccount.get(entry.account) ?? 0) + size > opts.maxBytesPerAccount) return;
    cache.set(key, entry);
    if (cache.has(key)) byAccount.set(entry.account, (byAccount.get(entry.account) ?? 0) + size);
  };

  return {
    async get(bytes, target, { sha256, account = '' }, prepare) {
      const hash = sha256 ?? createHash('sha256').update(bytes).digest('hex');
      const key = `${hash}:${target.width}x${target.height}:${target.fit}`;
      const hit = cache.get(key);
      if (hit && 'ok' in hit) return hit.ok;
      if (hit) throw hit.refused;
      const { value } = await flight.do(key, async () => {
        try {
          const ok = await prepare();
          store(key, { ok, account });
          return ok;
        } catch (err) {
          // Only the image's own fault is remembered; a busy queue (429, 503) is not.
          if (err instanceof AppError && err.code === 'unprocessable') store(key, { refused: err, account });
          throw err;
        }
      });
      return value;
    },

    stats() {
      return { entries: cache.size, bytes: cache.calculatedSize };
    },

    clear() {
      cache.clear();
    },
  };
}
