import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { AppError } from '../../errors.js';
import { createSingleFlight } from '../../lib/single-flight.js';
import { type ByteBudget, createSafeFetcher } from '../../net/fetch.js';
import { createUrlGuard } from '../../net/url-guard.js';
import { downloadFailure, imageServerBusy, raceSignal } from './artwork-errors.js';
import { formatMegabytes } from './artwork-format.js';
import { type ArtworkTarget, type PreparedArtwork, prepareArtwork } from './artwork-image.js';
import { createDecodePool, type ImageDecoder } from './decode-pool.js';
import { createPreparedCache } from './prepared-cache.js';
import { STRUCTURE_DEFAULTS, type StructureLimits } from './structure.js';

export interface ArtworkOptions {
  /** `host:port` pairs the URL guard lets through although private (test fixtures). */
  allowPrivateHosts: readonly string[];
  /** Ports public hosts may use (default 80 and 443). */
  allowedPorts?: readonly number[];
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  maxPixels?: number;
  /** How long raw bytes are reused; 0 turns the cache off. */
  cacheTtlMs?: number;
  cacheMaxBytes?: number;
  /** Downloads in flight on this node; past it a new one is refused with 503. */
  maxFetches?: number;
  /** Downloads in flight started by one account; past it a new one is refused with 429. */
  maxFetchesPerAccount?: number;
  /**
   * Bytes of imageUrl bodies held at once: being downloaded, or downloaded and waiting for
   * their card's render. A download that would pass it fails with 503.
   */
  maxBytesInFlight?: number;
  /** Called with the reason of every imageUrl that cannot be used (metrics). */
  onFailure?: (reason: string) => void;
  /** Where images are decoded; a pool of its own (closed with the fetcher) when omitted. */
  decoder?: ImageDecoder;
  /** Structure checks before decoding (JPEG scans, PNG metadata, GIF frames). */
  structure?: Partial<Omit<StructureLimits, 'maxPixels'>>;
  /** Bytes of prepared (decoded, resized) artwork kept by content hash and size; 0 turns it off. */
  preparedCacheBytes?: number;
}

export interface FetchedArtwork {
  bytes: Buffer;
  /** Hex SHA-256 of the raw bytes: part of the card's ETag. */
  sha256: string;
  ms: number;
  /**
   * Says the caller no longer needs `bytes` (idempotent): until every holder of a body has
   * released it, it counts against the bytes in flight.
   */
  release(): void;
}

export interface ArtworkFetcher {
  /**
   * The raw bytes behind `url` (cached, coalesced); failures are AppErrors naming imageUrl. A
   * new download counts against the node's and `account`'s downloads in flight.
   */
  fetch(
    url: string,
    signal?: AbortSignal,
    opts?: {
      account?: string;
      /** A smaller body limit for this use (a logo's 1 MB); the download stops there. */
      maxBytes?: number;
    },
  ): Promise<FetchedArtwork>;
  /**
   * Decodes sniffed PNG/JPEG/WebP/GIF/AVIF bytes in the decode pool and resizes them to exactly
   * the target, as PNG; cached by content hash (`sha256` when the caller has it) and target.
   */
  prepare(
    bytes: Buffer,
    target: ArtworkTarget,
    opts?: { account?: string; sha256?: string },
  ): Promise<PreparedArtwork>;
  /** The decode pool (logos use it too). */
  readonly decoder: ImageDecoder;
  /** Drops the cache and aborts fetches in flight. */
  close(): Promise<void>;
  /** Downloads in flight and bytes held (metrics, tests). */
  stats(): { fetching: number; bytesInFlight: number };
  /** Entries and bytes of the prepared-artwork cache (metrics). */
  preparedStats(): { entries: number; bytes: number };
}

const ACCEPT = 'image/avif,image/webp,image/png,image/jpeg,image/gif;q=0.9,*/*;q=0.1';

type Entry = { bytes: Buffer; sha256: string };

/** Creates the imageUrl fetcher and preparer used by templates that draw artwork. */
export function createArtworkFetcher(opts: ArtworkOptions): ArtworkFetcher {
  const timeoutMs = opts.timeoutMs ?? 5000;
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxFetches = opts.maxFetches ?? 32;
  const maxFetchesPerAccount = opts.maxFetchesPerAccount ?? 4;
  // Room for one largest body at least, or no download could ever start.
  const maxBytesInFlight = Math.max(maxBytes, opts.maxBytesInFlight ?? 128 * 1024 * 1024);
  const maxRedirects = opts.maxRedirects ?? 3;
  const maxPixels = opts.maxPixels ?? 25_000_000;
  const cacheTtlMs = opts.cacheTtlMs ?? 600_000;
  const guard = createUrlGuard({
    allowPrivateHosts: opts.allowPrivateHosts,
    allowedPorts: opts.allowedPorts,
  });
  const fetcher = createSafeFetcher({
    guard,
    timeoutMs,
    maxBytes,
    maxRedirects,
    userAgent: 'Cardshot artwork',
  });
  const cache = new LRUCache<string, Entry>({
    maxSize: opts.cacheMaxBytes ?? 64 * 1024 * 1024,
    sizeCalculation: (e) => Math.max(1, e.bytes.length),
    ttl: Math.max(1, cacheTtlMs),
  });
  const flight = createSingleFlight<Entry>();
  const closing = new AbortController();
  const ownDecoder = opts.decoder === undefined;
  const decoder = opts.decoder ?? createDecodePool(DECODE_DEFAULTS);
  const limits: StructureLimits = { ...STRUCTURE_DEFAULTS, ...opts.structure, maxPixels };
  const preparedCacheBytes = opts.preparedCacheBytes ?? 64 * 1024 * 1024;
  const prepared = createPreparedCache({
    maxBytes: preparedCacheBytes,
    maxBytesPerAccount: Math.ceil(preparedCacheBytes / 4),
  });

  // Downloads in flight, in all and per account, and the bytes of bodies held: set aside for
  // each download while it runs, then counted once per body while any caller holds it.
  let fetching = 0;
  const fetchingBy = new Map<string, number>();
  let bytesInFlight = 0;
  const held = new Map<Buffer, { size: number; holders: number }>();

  /** Counts `bytes` as held until the returned function is called (once per caller). */
  function hold(bytes: Buffer): () => void {
    const h = held.get(bytes);
    if (h) h.holders++;
    else {
      held.set(bytes, { size: bytes.length, holders: 1 });
      bytesInFlight += bytes.length;
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const e = held.get(bytes);
      if (!e) return;
      if (--e.holders === 0) {
        held.delete(bytes);
        bytesInFlight -= e.size;
      }
    };
  }

  /** A 503 (the node) or 429 (the account) when a new download cannot start now. */
  function admit(account: string | undefined, limit: number): void {
    if (account !== undefined && (fetchingBy.get(account) ?? 0) >= maxFetchesPerAccount) {
      failed('account_busy');
      throw new AppError(
        'rate_limited',
        `Too many imageUrl downloads at once for this account (at most ${maxFetchesPerAccount}); retry shortly`,
        { retryAfter: BUSY_RETRY_S, detail: `account ${account}: ${fetchingBy.get(account)} downloads` },
      );
    }
    if (fetching >= maxFetches || bytesInFlight + limit > maxBytesInFlight) {
      failed('busy');
      throw serverBusy(`${fetching} downloads, ${bytesInFlight} bytes held`);
    }
  }

  const failed = opts.onFailure ?? (() => {});
  const fail = (message: string, detail: string, cause?: unknown) =>
    new AppError('unprocessable', message, { detail, cause });

  const serverBusy = (detail: string, cause?: unknown) => imageServerBusy(BUSY_RETRY_S, detail, cause);
  const toAppError = (err: unknown, limit: number) =>
    downloadFailure(err, { limit, timeoutMs, maxRedirects, failed, serverBusy });

  async function load(url: string, account: string | undefined, limit: number): Promise<Entry> {
    admit(account, limit);
    fetching++;
    if (account !== undefined) fetchingBy.set(account, (fetchingBy.get(account) ?? 0) + 1);
    // The largest body is set aside before connecting, so a download once started always has
    // room to finish (budgets granted chunk by chunk failed every download at once when full);
    // a declared Content-Length gives the rest back.
    let reserved = limit;
    bytesInFlight += reserved;
    let received = 0;
    const budget: ByteBudget = {
      declare(n) {
        if (n >= reserved) return;
        bytesInFlight -= reserved - n;
        reserved = n;
      },
      take(n) {
        received += n;
        return received <= reserved;
      },
    };
    try {
      // Only the service's own close() cancels a shared fetch: one impatient caller must not
      // fail the others that joined it. The fetch is bounded by timeoutMs anyway.
      const { bytes } = await fetcher.fetch(url, {
        signal: closing.signal,
        accept: ACCEPT,
        budget,
        maxBytes: limit,
      });
      const entry = { bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
      if (cacheTtlMs > 0) cache.set(url, entry);
      return entry;
    } catch (err) {
      throw toAppError(err, limit);
    } finally {
      // The body's bytes are counted again by each caller's hold() from here on.
      bytesInFlight -= reserved;
      fetching--;
      if (account !== undefined) {
        const left = (fetchingBy.get(account) ?? 1) - 1;
        if (left > 0) fetchingBy.set(account, left);
        else fetchingBy.delete(account);
      }
    }
  }

  return {
    async fetch(url, signal, { account, maxBytes: callMax } = {}) {
      const limit = Math.min(callMax ?? maxBytes, maxBytes);
      const start = performance.now();
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw new AppError('bad_request', 'imageUrl must be an absolute http or https URL');
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
        throw new AppError('bad_request', 'imageUrl must be an absolute http or https URL');
      }
      // The fragment never reaches the server, so it must not split the cache.
      parsed.hash = '';
      const key = parsed.href;
      const hit = cache.get(key);
      if (hit && hit.bytes.length > limit) {
        failed('too_large');
        throw fail(
          `imageUrl is larger than ${formatMegabytes(limit)}`,
          `cached body of ${hit.bytes.length} bytes`,
        );
      }
      if (hit) return { ...hit, ms: performance.now() - start, release: hold(hit.bytes) };
      // Joining a download already in flight costs nothing new: only a new one is admitted. A
      // smaller limit is its own download: it must stop at its own limit.
      const flightKey = limit === maxBytes ? key : `${limit} ${key}`;
      const shared = flight.do(flightKey, () => load(key, account, limit)).then((r) => r.value);
      const entry = signal ? await raceSignal(shared, signal) : await shared;
      return { ...entry, ms: performance.now() - start, release: hold(entry.bytes) };
    },

    prepare(bytes, target, { account, sha256 } = {}) {
      const ctx = { decoder, limits, failed, ...(account === undefined ? {} : { account }) };
      return prepared.get(bytes, target, { account, sha256 }, () => prepareArtwork(bytes, target, ctx));
    },

    decoder,

    async close() {
      closing.abort(new Error('artwork fetcher closed'));
      cache.clear();
      prepared.clear();
      if (ownDecoder) await decoder.close();
    },

    stats() {
      return { fetching, bytesInFlight };
    },

    preparedStats: () => prepared.stats(),
  };
}

/** 5 MB: a product photo for a 1200×630 card needs far less; the old 10 MB let 150 slow cards hold 1.4 GB. */
export const DEFAULT_MAX_BYTES = 5 * 1000 * 1000;

/** The decode pool of a fetcher created without one (the CLI, tests): the settings' defaults. */
export const DECODE_DEFAULTS = { workers: 2, cpuMs: 1000, memoryBytes: 64 * 1024 * 1024 };

/** Seconds a refused download is told to wait: about one download's time. */
const BUSY_RETRY_S = 2;
