/**
 * The PNG cache: memory in front of disk by default; with REDIS_URL, Redis behind both as
 * the tier every node shares (modules.ts says why in that order). Keys are
 * hex digests chosen by the caller (a template ETag, a screenshot's normalised URL hash), so
 * they are safe as file names.
 */
export interface CacheEntry {
  body: Buffer;
  /** Strong ETag value without quotes. */
  etag: string;
  /** Unix ms when the entry was stored: gives `Age`. */
  storedAt: number;
  /** Unix ms after which the entry is stale; null = never (immutable template renders). */
  expiresAt: number | null;
  /** Small per-entry facts worth keeping (for example the target page's HTTP status). */
  meta?: Record<string, string>;
}

/** The whole lifetime an entry was stored with, in seconds (its `max-age`); 0 for no expiry. */
export function lifetimeSeconds(entry: Pick<CacheEntry, 'storedAt' | 'expiresAt'>): number {
  return Math.round(((entry.expiresAt ?? entry.storedAt) - entry.storedAt) / 1000);
}

export interface PngCache {
  /** The entry for `key`, or undefined when missing or expired. */
  get(key: string): Promise<CacheEntry | undefined>;
  /** Stores `entry`; failures are swallowed by the tiers (a cache must never fail a request). */
  set(key: string, entry: CacheEntry): Promise<void>;
  /** Drops `key` from every tier. */
  delete(key: string): Promise<void>;
  /** Entries and bytes held, per tier, for health and metrics. */
  stats(): Record<string, { entries: number; bytes: number }>;
  close(): Promise<void>;
}

const KEY = /^[A-Za-z0-9_-]{1,128}$/;

/** Throws when a key could escape the cache directory or collide with the file format. */
export function assertCacheKey(key: string): void {
  if (!KEY.test(key)) throw new Error(`invalid cache key: ${key.slice(0, 40)}`);
}

/** True when the entry has a deadline that has passed. */
export function isExpired(entry: CacheEntry, now = Date.now()): boolean {
  return entry.expiresAt !== null && entry.expiresAt <= now;
}

/** Told about every lookup in every tier (metrics); a tier added to the list is counted too. */
export type CacheObserver = (tier: string, hit: boolean) => void;

/** Combines tiers: reads go front to back and fill the faster tiers; writes go to all. */
export function createTieredCache(
  tiers: Array<{ name: string; cache: PngCache }>,
  observe: CacheObserver = () => {},
): PngCache {
  return {
    async get(key) {
      for (let i = 0; i < tiers.length; i++) {
        const hit = await tiers[i]!.cache.get(key);
        observe(tiers[i]!.name, hit !== undefined);
        if (hit) {
          // Faster tiers are filled behind the answer: a disk write must not delay a Redis hit.
          for (const t of tiers.slice(0, i)) t.cache.set(key, hit).catch(() => {});
          return hit;
        }
      }
      return undefined;
    },
    async set(key, entry) {
      await Promise.all(tiers.map((t) => t.cache.set(key, entry)));
    },
    async delete(key) {
      await Promise.all(tiers.map((t) => t.cache.delete(key)));
    },
    stats() {
      return Object.fromEntries(
        tiers.map((t) => [t.name, t.cache.stats()[t.name] ?? { entries: 0, bytes: 0 }]),
      );
    },
    async close() {
      await Promise.allSettled(tiers.map((t) => t.cache.close()));
    },
  };
}
