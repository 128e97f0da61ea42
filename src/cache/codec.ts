import type { CacheEntry } from './cache.js';

/** One JSON header line, then the PNG bytes: the format of a disk file and of a Redis value. */
export function encodeEntry(entry: CacheEntry): Buffer {
  const header = JSON.stringify({
    etag: entry.etag,
    storedAt: entry.storedAt,
    expiresAt: entry.expiresAt,
    meta: entry.meta ?? {},
  });
  return Buffer.concat([Buffer.from(`${header}\n`, 'utf8'), entry.body]);
}

/** The entry in `raw`, or undefined when it is not in the format (a corrupt file or value). */
export function decodeEntry(raw: Buffer): CacheEntry | undefined {
  const nl = raw.indexOf(0x0a);
  if (nl < 0) return undefined;
  try {
    const h = JSON.parse(raw.subarray(0, nl).toString('utf8')) as Partial<CacheEntry>;
    if (typeof h.etag !== 'string' || typeof h.storedAt !== 'number') return undefined;
    return {
      etag: h.etag,
      storedAt: h.storedAt,
      expiresAt: typeof h.expiresAt === 'number' ? h.expiresAt : null,
      meta: h.meta ?? {},
      body: raw.subarray(nl + 1),
    };
  } catch {
    return undefined;
  }
}
