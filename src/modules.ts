import path from 'node:path';
import type { Logger } from 'pino';
import { createTieredCache, type PngCache } from './cache/cache.js';
import { createDiskCache } from './cache/disk.js';
import { createMemoryCache } from './cache/memory.js';
import type { Config } from './config/schema.js';
import { createWorkQueue, type WorkQueue } from './lib/work-queue.js';
import { type ArtworkFetcher, createArtworkFetcher } from './render/image/artwork.js';
import { createScreenshotService, type ScreenshotService } from './render/screenshot/service.js';
import { createTemplateRenderer, type TemplateRenderer } from './render/template/renderer.js';
import { createTemplateService, type TemplateService } from './render/template/service.js';

/** Every stateful module the service runs, plus one `close()` that stops them in reverse order. */
export interface Modules {
  renderer: TemplateRenderer;
  artwork: ArtworkFetcher;
  cache: PngCache;
  renderQueue: WorkQueue;
  templates: TemplateService;
  /** GET /render/url; launches Chromium on first use (or on `warm()`), never at creation. */
  screenshots: ScreenshotService;
  close(): Promise<void>;
}

/** Creates the modules from configuration; shared by the server, the CLI and the tests. */
export async function createModules(config: Config, log: Logger): Promise<Modules> {
  const started: Array<{ name: string; close: () => Promise<void> }> = [];
  const closeAll = async () => {
    // Reverse start order; one failing close is logged and does not block the others.
    for (const m of started.reverse()) {
      try {
        await m.close();
      } catch (err) {
        log.error({ err, module: m.name }, 'module close failed');
      }
    }
  };
  try {
    const cache = createTieredCache([
      { name: 'memory', cache: createMemoryCache({ maxBytes: config.cacheMemoryBytes }) },
      {
        name: 'disk',
        cache: createDiskCache({
          dir: path.join(config.dataDir, 'cache'),
          maxBytes: config.cacheDiskBytes,
          log,
        }),
      },
    ]);
    started.push({ name: 'cache', close: () => cache.close() });

    const artwork = createArtworkFetcher({
      allowPrivateHosts: config.allowPrivateHosts,
      timeoutMs: config.imageTimeoutMs,
      maxBytes: config.imageMaxBytes,
      maxPixels: config.imageMaxPixels,
      cacheTtlMs: config.imageCacheTtlSeconds * 1000,
    });
    started.push({ name: 'artwork', close: () => artwork.close() });

    const renderer = await createTemplateRenderer();
    started.push({ name: 'renderer', close: () => renderer.close() });

    const renderQueue = createWorkQueue({
      name: 'template renderer',
      concurrency: config.renderConcurrency,
      maxWaiting: config.renderQueueSize,
    });
    started.push({ name: 'render queue', close: () => renderQueue.close() });

    const templates = createTemplateService({ renderer, artwork, cache, queue: renderQueue, log });

    const screenshots = createScreenshotService(config, { cache, log });
    started.push({ name: 'screenshots', close: () => screenshots.close() });

    return { renderer, artwork, cache, renderQueue, templates, screenshots, close: closeAll };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
