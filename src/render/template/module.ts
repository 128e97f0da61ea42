/**
 * The template area: the takumi renderer, its bounded queue and the card service over them, with
 * a readiness check that draws a real card and the queue's scrape-time metrics.
 */
import type { Renderer } from '@takumi-rs/core';
import type { Logger } from 'pino';
import { type Area, startArea } from '../../area.js';
import type { PngCache } from '../../cache/cache.js';
import { loadOperatorFonts } from '../../fonts/operator.js';
import { createWorkQueue, type WorkQueue } from '../../lib/work-queue.js';
import type { StorageConfig } from '../../storage/settings.js';
import type { ArtworkFetcher } from '../image/artwork.js';
import { operatorFontsDir } from './files/area.js';
import { createTemplateRenderer, type TemplateRenderer } from './renderer.js';
import { createTemplateService, type TemplateService } from './service.js';
import type { TemplateConfig } from './settings.js';
import type { TemplateRegistry, ThemeSource } from './types.js';

/** The renderer, its queue and the card service. */
export interface TemplateServices {
  renderer: TemplateRenderer;
  renderQueue: WorkQueue;
  templates: TemplateService;
}

/** Collaborators of the template area; the callbacks feed metrics. */
export interface TemplateAreaDeps {
  /** The templates (files and built-ins), read at request time. */
  registry: TemplateRegistry;
  /** Accounts' brand themes; absent: cards are never themed. */
  themes?: ThemeSource;
  artwork: ArtworkFetcher;
  cache: PngCache;
  log: Logger;
  /** One card drawn (not a cache hit or a 304), with its render time. */
  onRender: (template: string, seconds: number) => void;
  /** One card refused because the queue was full. */
  onBusy: () => void;
  /** A takumi engine with the fonts already registered (tests share one; see createTemplateRenderer). */
  engine?: Renderer;
}

/** Creates the renderer (fonts registered once), its queue and the card service. */
export function createTemplateArea(
  config: TemplateConfig & Pick<StorageConfig, 'dataDir'>,
  deps: TemplateAreaDeps,
): Promise<Area<TemplateServices>> {
  return startArea(deps.log, async (parts) => {
    const { registry } = deps;
    // Operator fonts are checked like uploads; a broken one stops the start, naming the file.
    const operator = await loadOperatorFonts(operatorFontsDir(config));
    const renderer = await createTemplateRenderer(registry, deps.engine, {
      operator,
      engineMaxBytes: config.fontEngineMaxBytes,
    });
    parts.add('renderer', () => renderer.close());
    const renderQueue = createWorkQueue({
      name: 'template renderer',
      concurrency: config.renderConcurrency,
      maxWaiting: config.renderQueueSize,
      onBusy: deps.onBusy,
    });
    parts.add('render queue', () => renderQueue.close());
    const templates = createTemplateService({
      registry,
      renderer,
      artwork: deps.artwork,
      cache: deps.cache,
      queue: renderQueue,
      log: deps.log,
      onRender: deps.onRender,
      ...(deps.themes ? { themes: deps.themes } : {}),
    });
    return {
      service: { renderer, renderQueue, templates },
      checks: {
        renderer: {
          critical: true,
          // A real card, drawn outside the queue: proves fonts and engine work, ~10 ms at most once a second.
          run: async () => {
            const { timings } = await renderer.render('blog', { title: 'Ready?' });
            return `rendered a card in ${Math.round(timings.layout + timings.render)} ms; ${renderQueue.active} rendering, ${renderQueue.waiting} waiting`;
          },
          fix: 'see the server log for the render error; npx cardshot doctor checks the fonts',
        },
      },
      samples: {
        'template queue': () => ({
          queues: {
            template: {
              active: renderQueue.active,
              waiting: renderQueue.waiting,
              concurrency: renderQueue.concurrency,
            },
          },
        }),
      },
    };
  });
}
