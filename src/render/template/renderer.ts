import { Renderer } from '@takumi-rs/core';
import { type OperatorFont, operatorFontsHash, registerOperatorFonts } from '../../fonts/operator.js';
import { warmCoverage } from '../text/coverage.js';
import { FALLBACK_FAMILIES, FONTS_VERSION, registerFonts } from '../text/fonts.js';
import { createEnginePool, type EnginePool } from './engines.js';
import { sampleFields } from './files/load.js';
import { createLayerRasterizer } from './layers.js';
import { loadBuiltins } from './registry.js';
import { DEFAULT_SIZE } from './sizes.js';
import type { BuildContext, TemplateFields, TemplateName, TemplateRegistry } from './types.js';

/**
 * The template renderer: one takumi instance with every font registered once at start.
 *
 * PNG comes straight from takumi. Measured here (p50, short-copy cards): takumi's PNG 8.7 ms and
 * 26 KB for blog, 11 ms and 100 KB for saas, against takumi `raw` (4.4 / 5.5 ms) plus sharp
 * `png({ compressionLevel: 6, adaptiveFiltering: false })` (7.8 / 14 ms) giving 53 / 108 KB.
 * One native call draws and encodes, so `timings.render` includes the encode; `timings.layout` is
 * the template's own work (text fitting, building the node tree) before it.
 */
export interface TemplateRenderer {
  /** Engine, font set and renderer revision; part of the public ETag. */
  readonly version: string;
  /** Draws one card (og size, no theme unless `ctx` says); rejects if `signal` aborts first. */
  render(
    name: TemplateName,
    fields: TemplateFields,
    opts?: { ctx?: BuildContext; signal?: AbortSignal },
  ): Promise<{ png: Buffer; timings: { layout: number; render: number } }>;
  /** The engines and the uploaded fonts loaded in them (bounded by bytes). */
  readonly fonts: EnginePool;
  /** Refuses further renders; takumi holds no handles that need releasing. */
  close(): Promise<void>;
}

/** The pinned engine (package.json); the package exports no version, so a test checks this one. */
export const TAKUMI_VERSION = '2.16.3';

/**
 * Bump when a card can look different (fonts, engine options, shared text layout); 2: per-paragraph
 * direction; 3: line counts per script, room for tall accents, subtitles aligned with the title;
 * 4: Korean breaks at spaces, long words shrink before breaking, tidy ellipses, letter initials;
 * 5: measured Greek, Cyrillic, Tamil, Khmer and Arabic widths, Thai-like word breaks, Hangul kept
 * whole beside Han, subtitles cut by the fitter; 6: balanced subtitles, short words and numbers
 * kept with their neighbour; 7: width tables exactly as measured (no hand-set pins), per-script
 * averages fitted per face by `npm run fonts:measure`.
 */
const RENDERER_REVISION = 7;

/** Decoded images, SVG rasters (emoji, decorative layers) and stylesheets, shared by renders. */
const CACHE_BYTES = 64 * 1024 * 1024;

/** Bytes of uploaded fonts an engine keeps before a fresh one is built (CARDSHOT_FONT_ENGINE_MAX_BYTES). */
const DEFAULT_ENGINE_FONT_BYTES = 128 * 1024 * 1024;

/** Fonts beyond the bundled ones: the operator's, and the bound on accounts' loaded fonts. */
export interface RendererFonts {
  operator?: readonly OperatorFont[];
  engineMaxBytes?: number;
}

/** A takumi engine with every font registered: most of the renderer's start-up time. */
export async function loadTakumiEngine(): Promise<Renderer> {
  const engine = new Renderer({ cacheMaxBytes: CACHE_BYTES });
  await registerFonts(engine);
  return engine;
}

/**
 * Loads every font once and returns the renderer the template service calls, drawing from
 * `registry` (default: the built-ins alone, for tools and tests). `shared` is for tests: the many
 * apps a test run starts share one engine instead of registering ~700 fonts each.
 */
export async function createTemplateRenderer(
  registry?: TemplateRegistry,
  shared?: Renderer,
  fonts: RendererFonts = {},
): Promise<TemplateRenderer> {
  const templates = registry ?? (await loadBuiltins());
  const operator = fonts.operator ?? [];
  const engine = shared ?? (await loadTakumiEngine());
  await registerOperatorFonts(engine, operator);
  const pool = createEnginePool({
    first: engine,
    build: async () => {
      const fresh = await loadTakumiEngine();
      await registerOperatorFonts(fresh, operator);
      return fresh;
    },
    maxBytes: fonts.engineMaxBytes ?? DEFAULT_ENGINE_FONT_BYTES,
  });
  // Request parsing and text fitting read the glyph coverage synchronously: built here, not on
  // the first request.
  warmCoverage();
  const fontFamilies = [...FALLBACK_FAMILIES];
  const layers = createLayerRasterizer();
  let closed = false;

  const renderer: TemplateRenderer = {
    // Operator fonts change what cards look like: their content is in every ETag.
    version: `takumi-${TAKUMI_VERSION}/fonts-${FONTS_VERSION}${operator.length > 0 ? `+${operatorFontsHash(operator)}` : ''}/r${RENDERER_REVISION}`,
    fonts: pool,

    async render(name, fields, { ctx = { size: DEFAULT_SIZE }, signal } = {}) {
      if (closed) throw new Error('template renderer is closed');
      signal?.throwIfAborted();
      const def = templates.get(name);
      if (!def) throw new Error(`template ${JSON.stringify(name)} is not loaded`);
      const layoutStart = performance.now();
      const built = def.build(fields, ctx);
      // An uploaded family is loaded into the engine before the first card that names it.
      const drawing = await pool.acquire(ctx.theme?.customFont);
      const { node, images } = await layers.flatten(built.node, built.images, drawing);
      const start = performance.now();
      const png = await drawing.render(node, {
        width: ctx.size.width,
        height: ctx.size.height,
        format: 'png',
        images,
        fontFamilies,
        ...(signal ? { signal } : {}),
      });
      return { png, timings: { layout: start - layoutStart, render: performance.now() - start } };
    },

    async close() {
      closed = true;
    },
  };
  await warmUp(renderer, templates);
  return renderer;
}

/**
 * The first render of each template rasterises its decorative layers and the emoji and glyph
 * caches (~90 ms measured for saas); doing it at start keeps that cost off the first request.
 */
async function warmUp(renderer: TemplateRenderer, registry: TemplateRegistry): Promise<void> {
  await Promise.all(registry.list().map((t) => renderer.render(t.name, sampleFields(t))));
}
