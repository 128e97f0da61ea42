import { CardshotError, errorFromResponse } from './errors.js';
import { signPath } from './signing.js';

/** The built-in templates; a server may have more, so any string is accepted. */
export type TemplateName = 'blog' | 'product' | 'saas' | (string & {});
/** The built-in viewports; an operator may configure more. */
export type Viewport = 'og' | 'desktop' | 'mobile' | (string & {});
export type WaitUntil = 'load' | 'domcontentloaded' | 'networkidle';

/** The card fields (POST /render/template). */
export interface TemplateInput {
  template: TemplateName;
  /** At most 200 characters. */
  title: string;
  /** At most 300 characters. */
  subtitle?: string;
  /** At most 60 characters; drawn by templates with a brand slot. */
  brand?: string;
  /** Absolute http(s) URL of a PNG, JPEG, WebP, GIF or AVIF; drawn by templates with artwork. */
  imageUrl?: string;
}

/** The screenshot parameters (GET /render/url). */
export interface ScreenshotInput {
  url: string;
  /** Default `og` (1200×630). */
  viewport?: Viewport;
  /** Default `load`. */
  waitUntil?: WaitUntil;
}

export interface CardshotOptions {
  /** Where Cardshot runs, for example `https://cards.example.com`. */
  baseUrl: string;
  /** Sent as `x-api-key`. Keep it on servers: never ship it to a browser or an app. */
  apiKey?: string;
  /** Key id and signing secret (shown once beside the key) for `signedTemplateUrl`. */
  keyId?: string;
  signingSecret?: string;
  /** Per attempt; default 30 s (a cold screenshot can take several seconds). */
  timeoutMs?: number;
  /** Retries after 429 and 503, honouring Retry-After; default 0 (off). */
  retries?: number;
  /** First backoff when the server sends no Retry-After; doubles each retry. Default 500 ms. */
  retryDelayMs?: number;
  /** A wait longer than this (Retry-After included) is not waited for: the error is thrown. Default 10 s. */
  maxRetryDelayMs?: number;
  /** A fetch implementation (tests, proxies, older runtimes); default the global fetch. */
  fetch?: typeof fetch;
}

export interface CallOptions {
  /** An ETag from an earlier answer: a match gives `{ notModified: true }` and nothing is rendered. */
  ifNoneMatch?: string;
  signal?: AbortSignal;
}

/** What every image answer carries. */
interface ImageMeta {
  /** Strong ETag with its quotes, ready for `ifNoneMatch`. */
  etag: string;
  requestId: string | undefined;
  /** The rate-limit budget after this request, when the server sent it. */
  rateLimit: { limit: number; remaining: number; resetAt: Date } | undefined;
}

export type ImageResult = ImageMeta &
  (
    | { notModified: false; png: Uint8Array; cache: 'HIT' | 'MISS' }
    | { notModified: true; png: null; cache: undefined }
  );

export type ScreenshotResult = ImageResult & {
  /** The page's own HTTP status (4xx/5xx pages are rendered too). */
  targetStatus: number | undefined;
  /** Seconds since the screenshot was taken. */
  age: number;
};

const DAY = 86_400;

/**
 * A typed client for a Cardshot server. Zero dependencies: it runs wherever `fetch` and
 * WebCrypto exist (Node 20+, browsers, Deno, Bun, edge runtimes).
 */
export class Cardshot {
  readonly baseUrl: string;
  private readonly opts: CardshotOptions;
  private readonly fetchImpl: typeof fetch;

  constructor(opts: CardshotOptions) {
    if (!opts?.baseUrl) throw new TypeError('Cardshot: baseUrl is required');
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.opts = opts;
    const f = opts.fetch ?? globalThis.fetch;
    if (typeof f !== 'function') throw new TypeError('Cardshot: no fetch available; pass options.fetch');
    this.fetchImpl = f.bind(globalThis);
  }

  /** POST /render/template: a 1200×630 PNG card. Throws CardshotError on any refusal. */
  async renderTemplate(input: TemplateInput, call: CallOptions = {}): Promise<ImageResult> {
    const res = await this.send(
      '/render/template',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(input),
      },
      call,
    );
    return this.image(res);
  }

  /** GET /render/url: a PNG of the page's visible viewport. Throws CardshotError on any refusal. */
  async screenshot(input: ScreenshotInput, call: CallOptions = {}): Promise<ScreenshotResult> {
    const query = new URLSearchParams({ url: input.url });
    if (input.viewport !== undefined) query.set('viewport', input.viewport);
    if (input.waitUntil !== undefined) query.set('waitUntil', input.waitUntil);
    const res = await this.send(`/render/url?${query.toString()}`, { method: 'GET' }, call);
    const result = await this.image(res);
    const target = res.headers.get('x-target-status');
    return {
      ...result,
      targetStatus: target === null ? undefined : Number(target),
      age: Number(res.headers.get('age') ?? 0),
    };
  }

  /**
   * A signed GET /render/template URL for `<meta property="og:image">`: it renders exactly this
   * card until it expires (default one year), and shows no key. Needs `keyId` and `signingSecret`;
   * sign on your server, since anyone holding the signing secret can sign any card.
   */
  async signedTemplateUrl(input: TemplateInput, expiry: Expiry = {}): Promise<string> {
    const params: Array<[string, string]> = [];
    for (const name of ['template', 'title', 'subtitle', 'brand', 'imageUrl'] as const) {
      const value = input[name];
      if (value !== undefined && value !== '') params.push([name, value]);
    }
    return this.sign('/render/template', params, expiry);
  }

  /** A signed GET /render/url URL (same rules as `signedTemplateUrl`). */
  async signedScreenshotUrl(input: ScreenshotInput, expiry: Expiry = {}): Promise<string> {
    const params: Array<[string, string]> = [['url', input.url]];
    if (input.viewport !== undefined) params.push(['viewport', input.viewport]);
    if (input.waitUntil !== undefined) params.push(['waitUntil', input.waitUntil]);
    return this.sign('/render/url', params, expiry);
  }

  private async sign(path: string, params: Array<[string, string]>, expiry: Expiry): Promise<string> {
    const { keyId, signingSecret } = this.opts;
    if (!keyId || !signingSecret) {
      throw new TypeError('Cardshot: signed URLs need keyId and signingSecret in the options');
    }
    const expiresAt =
      expiry.expiresAt !== undefined
        ? Math.floor(
            (expiry.expiresAt instanceof Date ? expiry.expiresAt.getTime() : expiry.expiresAt) / 1000,
          )
        : Math.floor(Date.now() / 1000) + (expiry.expiresInSeconds ?? 365 * DAY);
    const base = new URL(this.baseUrl);
    const prefix = base.pathname.replace(/\/+$/, '');
    return signPath(`${base.origin}${prefix}`, path, params, { keyId, secret: signingSecret, expiresAt });
  }

  private async image(res: Response): Promise<ImageResult> {
    const limit = res.headers.get('x-ratelimit-limit');
    const meta: ImageMeta = {
      etag: res.headers.get('etag') ?? '',
      requestId: res.headers.get('x-request-id') ?? undefined,
      rateLimit:
        limit === null
          ? undefined
          : {
              limit: Number(limit),
              remaining: Number(res.headers.get('x-ratelimit-remaining') ?? 0),
              resetAt: new Date(Number(res.headers.get('x-ratelimit-reset') ?? 0) * 1000),
            },
    };
    if (res.status === 304) return { ...meta, notModified: true, png: null, cache: undefined };
    const png = new Uint8Array(await res.arrayBuffer());
    return { ...meta, notModified: false, png, cache: res.headers.get('x-cache') === 'HIT' ? 'HIT' : 'MISS' };
  }

  /** One request with time-out, retries on 429/503, and errors turned into CardshotError. */
  private async send(path: string, init: RequestInit, call: CallOptions): Promise<Response> {
    const retries = Math.max(0, this.opts.retries ?? 0);
    const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
    if (this.opts.apiKey) headers['x-api-key'] = this.opts.apiKey;
    if (call.ifNoneMatch) headers['if-none-match'] = call.ifNoneMatch;
    for (let attempt = 0; ; attempt++) {
      const res = await this.attempt(`${this.baseUrl}${path}`, { ...init, headers }, call.signal);
      if (res.ok || res.status === 304) return res;
      const err = await errorFromResponse(res);
      const wait = this.retryDelay(err, attempt);
      if (attempt >= retries || wait === undefined) throw err;
      await sleep(wait, call.signal);
    }
  }

  private retryDelay(err: CardshotError, attempt: number): number | undefined {
    if (err.status !== 429 && err.status !== 503) return undefined;
    const max = this.opts.maxRetryDelayMs ?? 10_000;
    const backoff = (this.opts.retryDelayMs ?? 500) * 2 ** attempt;
    const wait = err.retryAfter !== undefined ? err.retryAfter * 1000 : backoff;
    return wait > max ? undefined : wait;
  }

  private async attempt(url: string, init: RequestInit, signal: AbortSignal | undefined): Promise<Response> {
    if (signal?.aborted) throw new CardshotError('The request was aborted', { status: 0, code: 'aborted' });
    const timeoutMs = this.opts.timeoutMs ?? 30_000;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    // Forwarded by hand rather than AbortSignal.any, which older runtimes lack.
    const forward = () => controller.abort();
    signal?.addEventListener('abort', forward, { once: true });
    try {
      const res = await this.fetchImpl(url, { ...init, signal: controller.signal });
      // Reading the body is part of the attempt too: a stalled body is a time-out, not a hang.
      const body = await res.arrayBuffer();
      return new Response(res.status === 304 || res.status === 204 ? null : body, {
        status: res.status,
        statusText: res.statusText,
        headers: res.headers,
      });
    } catch (err) {
      if (signal?.aborted)
        throw new CardshotError('The request was aborted', { status: 0, code: 'aborted', cause: err });
      if (timedOut) {
        throw new CardshotError(`No answer from Cardshot within ${timeoutMs} ms`, {
          status: 0,
          code: 'timeout',
          cause: err,
        });
      }
      throw new CardshotError(`Could not reach Cardshot at ${this.baseUrl}: ${(err as Error).message}`, {
        status: 0,
        code: 'network',
        cause: err,
      });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
    }
  }
}

/** When a signed URL stops working: an absolute time, or seconds from now (default 365 days). */
export interface Expiry {
  expiresAt?: Date | number;
  expiresInSeconds?: number;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted)
      return reject(new CardshotError('The request was aborted', { status: 0, code: 'aborted' }));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new CardshotError('The request was aborted', { status: 0, code: 'aborted' }));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
