import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { PngCache } from '../../cache/cache.js';
import { etagMatches } from '../../cache/etag.js';
import { AppError } from '../../errors.js';
import type { SingleFlight } from '../../lib/single-flight.js';
import { createSingleFlight } from '../../lib/single-flight.js';
import type { WorkQueue } from '../../lib/work-queue.js';
import { encodeLossy, type ImageFormat, lossy } from '../format.js';
import type { ArtworkFetcher } from '../image/artwork.js';
import type { TemplateRenderer } from './renderer.js';
import type { TemplateRequest } from './request.js';
import { SIZES } from './sizes.js';
import type {
  BuildContext,
  CardTheme,
  TemplateDefinition,
  TemplateFields,
  TemplateRegistry,
  ThemeSource,
} from './types.js';

/** What a card request resolves to: an image (from cache or fresh; PNG unless asked) or "you already have it". */
export type CardResult = {
  etag: string;
  format: ImageFormat;
  timings: Timings;
  /** Drawn with the account's brand theme: it changes when the theme does, at the same URL. */
  themed: boolean;
} & ({ kind: 'not-modified' } | { kind: 'png'; body: Buffer; cache: 'HIT' | 'MISS' });

/** Milliseconds per phase, for Server-Timing (`encode` only for JPEG, WebP and AVIF). */
export type Timings = Partial<
  Record<'fetch' | 'image' | 'cache' | 'queue' | 'layout' | 'render' | 'encode' | 'wait', number>
>;

export interface TemplateService {
  /** The card for `req`: 304 decision, cache, coalescing, artwork and render in that order. */
  resolve(req: TemplateRequest, opts?: ResolveCardOptions): Promise<CardResult>;
  /** The ETag a request would get (fetches artwork when the template draws it). */
  etagOf(req: TemplateRequest, signal?: AbortSignal, account?: string): Promise<string>;
}

/** What a card request is resolved with besides itself. */
export interface ResolveCardOptions {
  ifNoneMatch?: string;
  signal?: AbortSignal;
  /** The account: its theme, its cache scope and its share of artwork downloads. */
  account?: string;
  /**
   * A theme not saved yet (the Theme page's preview), drawn instead of the account's where the
   * template draws one. Such a card is neither looked up in nor stored in the cache: a page that
   * redraws on every change would otherwise fill it with themes nobody will ask for again.
   */
  draftTheme?: CardTheme;
}

interface Deps {
  /** Read at request time: templates can be reloaded while the server runs. */
  registry: TemplateRegistry;
  renderer: TemplateRenderer;
  artwork: ArtworkFetcher;
  cache: PngCache;
  queue: WorkQueue;
  log?: Logger;
  /** Told how long each render took (metrics). */
  onRender?: (template: string, seconds: number) => void;
  /** Accounts' brand themes; absent: no card is themed. */
  themes?: ThemeSource;
}

/** Wires validation output to the renderer with caching and single-flight. */
export function createTemplateService(deps: Deps): TemplateService {
  const flight: SingleFlight<{ body: Buffer; timings: Timings }> = createSingleFlight();

  async function identify(
    req: TemplateRequest,
    signal?: AbortSignal,
    account?: string,
    draftTheme?: CardTheme,
  ) {
    const def = deps.registry.get(req.template);
    // The parser checked the name; a reload may have removed the template since.
    if (!def)
      throw new AppError('bad_request', `template ${JSON.stringify(req.template)} is no longer available`);
    const timings: Timings = {};
    let artworkBytes: Buffer | undefined;
    let artworkHash: string | null = null;
    // The artwork's bytes count against the bytes in flight until the caller releases them.
    let release = () => {};
    // Fields a template does not draw are dropped here, so they neither change the ETag nor
    // cost a fetch: `imageUrl` on a text-only template is accepted and ignored.
    if (def.uses.artwork && req.imageUrl !== undefined) {
      const fetched = await deps.artwork.fetch(
        req.imageUrl,
        signal,
        account === undefined ? {} : { account },
      );
      release = fetched.release;
      artworkBytes = fetched.bytes;
      artworkHash = fetched.sha256;
      timings.fetch = fetched.ms;
    }
    // The account's theme (or the draft being previewed) only where the template draws one and
    // the request did not say theme=none; its version is in the identity, so a themed card is
    // cached per theme.
    const theme = await themeOf(def, req, account, draftTheme);
    const identity = [
      'cardshot-template',
      deps.renderer.version,
      def.name,
      def.hash,
      // Every declared field in declared order (the built-ins': title, subtitle, as before).
      ...Object.keys(def.fields).map((name) => req.fields[name] ?? null),
      def.uses.brand ? (req.brand ?? null) : null,
      artworkHash,
      // Only when not PNG, not og, themed: a PNG og card keeps the ETag (and cache entry) it always had.
      ...(req.output ? [[req.output.format, req.output.quality ?? null]] : []),
      ...(req.size !== 'og' ? [['size', req.size]] : []),
      ...(theme ? [['theme', theme.version]] : []),
      // The account scopes the card (cache entry and ETag): otherwise X-Cache: HIT, a 304 on a
      // known ETag, or a fast answer told any key holder what another account rendered, themed
      // cards included (anyone can copy a theme's public colours, font and logo). Issue 26 §3.
      ...(account !== undefined ? [['account', account]] : []),
    ];
    const etag = createHash('sha256').update(JSON.stringify(identity)).digest('hex').slice(0, 40);
    const ctx: BuildContext = { size: SIZES[req.size], ...(theme ? { theme } : {}) };
    return { def, etag, artworkBytes, artworkHash, timings, release, ctx, themed: theme !== undefined };
  }

  async function themeOf(
    def: TemplateDefinition,
    req: TemplateRequest,
    account: string | undefined,
    draftTheme: CardTheme | undefined,
  ): Promise<CardTheme | undefined> {
    if (!def.uses.theme || req.theme === 'none') return undefined;
    if (draftTheme) return draftTheme;
    return account !== undefined ? await deps.themes?.get(account) : undefined;
  }

  return {
    async etagOf(req, signal, account) {
      const { etag, release } = await identify(req, signal, account);
      release();
      return etag;
    },

    async resolve(req, opts = {}) {
      const { release, ...identified } = await identify(req, opts.signal, opts.account, opts.draftTheme);
      try {
        return await resolveIdentified(req, identified, opts);
      } finally {
        release();
      }
    },
  };

  async function resolveIdentified(
    req: TemplateRequest,
    {
      def,
      etag,
      artworkBytes,
      artworkHash,
      timings,
      ctx,
      themed,
    }: Omit<Awaited<ReturnType<typeof identify>>, 'release'>,
    opts: ResolveCardOptions,
  ): Promise<CardResult> {
    const cached = opts.draftTheme === undefined;
    const format = req.output?.format ?? 'png';
    if (opts.ifNoneMatch !== undefined && etagMatches(opts.ifNoneMatch, etag)) {
      return { kind: 'not-modified', etag, format, timings, themed };
    }

    const lookupStart = performance.now();
    const hit = cached ? await deps.cache.get(etag) : undefined;
    if (cached) timings.cache = performance.now() - lookupStart;
    if (hit) return { kind: 'png', etag, format, body: hit.body, cache: 'HIT', timings, themed };

    const joined = performance.now();
    const { value, shared } = await flight.do(etag, async () => {
      const t: Timings = {};
      const fields: TemplateFields = { ...req.fields };
      if (def.uses.brand && req.brand !== undefined) fields.brand = req.brand;
      // Artwork is decoded in the decode pool (child processes with CPU and memory limits, one
      // slot per account) before the render slot is taken: a slow image used to hold a render
      // slot for seconds while other accounts' 17 ms cards waited (issue 26 §1).
      if (artworkBytes && def.artworkSize) {
        const start = performance.now();
        fields.artwork = await deps.artwork.prepare(artworkBytes, def.artworkSize(ctx.size), {
          ...(opts.account === undefined ? {} : { account: opts.account }),
          ...(artworkHash === null ? {} : { sha256: artworkHash }),
        });
        t.image = performance.now() - start;
      }
      const queued = performance.now();
      // No abort signal on the shared render: other callers may be waiting for the same card.
      const out = await deps.queue.run(async () => {
        t.queue = performance.now() - queued;
        const started = performance.now();
        const rendered = await deps.renderer.render(def.name, fields, { ctx });
        deps.onRender?.(def.name, (performance.now() - started) / 1000);
        // JPEG, WebP and AVIF are made from takumi's PNG by the one encoder both routes share,
        // in the same slot: encoding is CPU work like the render.
        const lossyOutput = lossy(req.output);
        if (!lossyOutput) return { ...rendered, image: rendered.png };
        const encodeStart = performance.now();
        const image = await encodeLossy(rendered.png, lossyOutput);
        t.encode = performance.now() - encodeStart;
        return { ...rendered, image };
      });
      t.layout = out.timings.layout;
      t.render = out.timings.render;
      // The disk write happens after the response; the memory tier is filled at once.
      if (cached) {
        deps.cache
          .set(etag, { body: out.image, etag, storedAt: Date.now(), expiresAt: null })
          .catch((err) => deps.log?.warn({ err }, 'cache store failed'));
      }
      return { body: out.image, timings: t };
    });
    return {
      kind: 'png',
      etag,
      format,
      themed,
      body: value.body,
      cache: 'MISS',
      // A request that joined an identical render already running reports how long it waited
      // for it, not that render's phases (which began before this request did).
      timings: shared ? { ...timings, wait: performance.now() - joined } : { ...timings, ...value.timings },
    };
  }
}
