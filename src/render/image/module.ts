/**
 * The artwork area: imageUrl downloads through the URL guard, bounded per node and per account,
 * and the decode pool that artwork and logos are decoded in.
 */
import type { Logger } from 'pino';
import { type Area, startArea } from '../../area.js';
import type { NetConfig } from '../../net/settings.js';
import { type ArtworkFetcher, createArtworkFetcher } from './artwork.js';
import { createDecodePool } from './decode-pool.js';
import type { ImageConfig } from './settings.js';

/** Creates the artwork fetcher; `onFailure` counts unusable images by reason (metrics). */
export function createImageArea(
  config: ImageConfig & NetConfig,
  deps: { log: Logger; onFailure: (reason: string) => void },
): Promise<Area<ArtworkFetcher>> {
  return startArea(deps.log, (parts) => {
    const decoder = createDecodePool({
      workers: config.imageDecodeWorkers,
      cpuMs: config.imageDecodeCpuMs,
      memoryBytes: config.imageDecodeMemoryBytes,
    });
    parts.add('image decoder', () => decoder.close());
    const artwork = createArtworkFetcher({
      decoder,
      preparedCacheBytes: config.imagePreparedCacheBytes,
      allowPrivateHosts: config.allowPrivateHosts,
      timeoutMs: config.imageTimeoutMs,
      maxBytes: config.imageMaxBytes,
      maxFetches: config.imageFetchConcurrency,
      maxFetchesPerAccount: config.imageFetchConcurrencyPerAccount,
      maxBytesInFlight: config.imageFetchMemoryBytes,
      maxPixels: config.imageMaxPixels,
      cacheTtlMs: config.imageCacheTtlSeconds * 1000,
      onFailure: deps.onFailure,
    });
    parts.add('artwork', () => artwork.close());
    return {
      service: artwork,
      samples: {
        'image decoder': () => {
          const d = decoder.stats();
          return {
            queues: { 'image decoder': { active: d.running, waiting: d.waiting, concurrency: d.workers } },
            cacheTiers: { 'prepared artwork': artwork.preparedStats() },
          };
        },
      },
    };
  });
}
