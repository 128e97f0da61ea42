import { FontsApi } from './fonts.js';
import { JobsApi } from './jobs.js';
import {
  type FormatChoice,
  formatOf,
  type ImageContentType,
  type ImageFormat,
  type ScreenshotOptions,
  screenshotParams,
  templateParams,
} from './options.js';
import { encodeRfc3986, signPath } from './signing.js';
import { SitesApi } from './sites.js';
import { StorageApi } from './storage.js';
import type { CardshotTemplates } from './templates.generated.js';
import { send, sendJson } from './transport.js';
import type { UnfurlReport } from './unfurl.js';
import { WebhooksApi } from './webhook-endpoints.js';

/**
 * A template's name: those `CardshotTemplates` knows (the built-ins, and yours once you add
 * them with `npx cardshot templates types`), or any other string the server may have.
 */
export type TemplateName = keyof CardshotTemplates | (string & {});

/** The built-in viewports; an operator may configure more. */
export type Viewport = 'og' | 'desktop' | 'mobile' | (string & {});
export type WaitUntil = 'load' | 'domcontentloaded' | 'networkidle';

/** The fields a template takes: its declared ones when the types know it, any otherwise. */
export type TemplateFieldsOf<T extends TemplateName> = T extends keyof CardshotTemplates
  ? CardshotTemplates[T]
  : { [field: string]: string | number | undefined };

/**
 * A card request (POST /render/template): the template, its fields as it declares them
 * (`title`, `subtitle`, `brand`, `imageUrl`, `size`… for the built-ins), and the output format
 * (PNG unless asked).
 */
export type TemplateInput<T extends TemplateName = TemplateName> = { template: T } & TemplateFieldsOf<T> &
  FormatChoice;

/** The screenshot parameters (GET /render/url): the page, the viewport and every option. */
export type ScreenshotInput = {
  url: string;
  /** Default `og` (1200×630). */
  viewport?: Viewport;
  /** Default `load`. */
  waitUntil?: WaitUntil;
} & ScreenshotOptions &
  FormatChoice;

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
    | {
        notModified: false;
        /** The image bytes, in `format`. */
        image: Uint8Array;
        /** @deprecated The same bytes as `image`, under their first name (not PNG when another format was asked). */
        png: Uint8Array;
        format: ImageFormat;
        contentType: ImageContentType;
        cache: 'HIT' | 'MISS';
      }
    | {
        notModified: true;
        image: null;
        png: null;
        format: undefined;
        contentType: undefined;
        cache: undefined;
      }
  );

export type ScreenshotResult = ImageResult & {
  /** The page's own HTTP status (4xx/5xx pages are rendered too). */
  targetStatus: number | undefined;
  /** Seconds since the screenshot was taken. */
  age: number;
  /** With `fullPage`: the page's whole height in CSS pixels (X-Page-Height), even when the image was cut. */
  pageHeight: number | undefined;
  /** With `fullPage`: true when the server's height cap cut the image short (X-Full-Page-Truncated). */
  fullPageTruncated: boolean;
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
  /** Background jobs: many cards and screenshots at once, their images kept for a while. */
  readonly jobs: JobsApi;
  /** Webhook endpoints, told when a job ends (verify what they receive with `verifyWebhook`). */
  readonly webhooks: WebhooksApi;
  /** S3-compatible storage targets that renders (store=s3) and jobs are delivered to. */
  readonly storage: StorageApi;
  /** Fonts uploaded for the account's theme (`fontFamily`). */
  readonly fonts: FontsApi;
  /** Registered sites: one og:image tag (`GET /og/<id>/<path>`) gives every page its card. */
  readonly sites: SitesApi;

  constructor(opts: CardshotOptions) {
    if (!opts?.baseUrl) throw new TypeError('Cardshot: baseUrl is required');
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.opts = opts;
    const f = opts.fetch ?? globalThis.fetch;
    if (typeof f !== 'function') throw new TypeError('Cardshot: no fetch available; pass options.fetch');
    this.fetchImpl = f.bind(globalThis);
    const transport = { ...opts, baseUrl: this.baseUrl, fetchImpl: this.fetchImpl };
    this.jobs = new JobsApi(transport);
    this.webhooks = new WebhooksApi(transport);
    this.storage = new StorageApi(transport);
    this.fonts = new FontsApi(transport);
    this.sites = new SitesApi(transport);
  }

  /**
   * POST /render/template: a card at the template's default size or `size` (PNG unless `format`
   * says otherwise). Throws CardshotError on any refusal.
   */
  async renderTemplate<T extends TemplateName>(
    input: TemplateInput<T>,
    call: CallOptions = {},
  ): Promise<ImageResult> {
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

  /**
   * GET /render/url: an image of the page (its visible viewport, the whole page with `fullPage`,
   * or one element with `selector`). Throws CardshotError on any refusal.
   */
  async screenshot(input: ScreenshotInput, call: CallOptions = {}): Promise<ScreenshotResult> {
    // Credentials never go in a URL: with any of them, the same request is a POST body.
    const i = input as unknown as Record<string, unknown>;
    const signedIn = ['headers', 'cookies', 'basicAuth', 'userAgent'].some((k) => i[k] !== undefined);
    const res = signedIn
      ? await this.send(
          '/render/url',
          { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) },
          call,
        )
      : await this.send(`/render/url?${toQuery(screenshotParams(input))}`, { method: 'GET' }, call);
    const result = await this.image(res);
    const target = res.headers.get('x-target-status');
    const height = res.headers.get('x-page-height');
    return {
      ...result,
      targetStatus: target === null ? undefined : Number(target),
      age: Number(res.headers.get('age') ?? 0),
      pageHeight: height === null ? undefined : Number(height),
      fullPageTruncated: res.headers.get('x-full-page-truncated') === 'true',
    };
  }

  /**
   * A signed GET /render/template URL for `<meta property="og:image">`: it renders exactly this
   * card until it expires (default one year), and shows no key. `v` (a version you pick) changes
   * the URL only, so crawlers fetch the card again after a design change. Needs `keyId` and `signingSecret`;
   * sign on your server, since anyone holding the signing secret can sign any card.
   */
  async signedTemplateUrl<T extends TemplateName>(
    input: TemplateInput<T> & { v?: string },
    expiry: Expiry = {},
  ): Promise<string> {
    return this.sign('/render/template', templateParams(input), expiry);
  }

  /**
   * GET /unfurl: how X, LinkedIn, Facebook, Slack, Discord, WhatsApp, iMessage, Telegram and
   * Mastodon will show `url`, and every problem found with its fix. The server reads the page as
   * each network's crawler; the same account gets the same report for a minute.
   */
  unfurl(url: string, call: CallOptions = {}): Promise<UnfurlReport> {
    return sendJson<UnfurlReport>(
      { ...this.opts, baseUrl: this.baseUrl, fetchImpl: this.fetchImpl },
      'GET',
      `/unfurl?url=${encodeURIComponent(url)}`,
      undefined,
      call,
    );
  }

  /** A signed GET /render/url URL with every option given (same rules as `signedTemplateUrl`). */
  async signedScreenshotUrl(input: ScreenshotInput, expiry: Expiry = {}): Promise<string> {
    return this.sign('/render/url', screenshotParams(input), expiry);
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
    if (res.status === 304) {
      return {
        ...meta,
        notModified: true,
        image: null,
        png: null,
        format: undefined,
        contentType: undefined,
        cache: undefined,
      };
    }
    const image = new Uint8Array(await res.arrayBuffer());
    return {
      ...meta,
      notModified: false,
      image,
      png: image,
      ...formatOf(res.headers.get('content-type')),
      cache: res.headers.get('x-cache') === 'HIT' ? 'HIT' : 'MISS',
    };
  }

  private send(path: string, init: RequestInit, call: CallOptions): Promise<Response> {
    return send({ ...this.opts, baseUrl: this.baseUrl, fetchImpl: this.fetchImpl }, path, init, call);
  }
}

/** When a signed URL stops working: an absolute time, or seconds from now (default 365 days). */
export interface Expiry {
  expiresAt?: Date | number;
  expiresInSeconds?: number;
}

/** `name=value&…` with %20 for spaces, as signed URLs are written, so both forms of a request match. */
function toQuery(params: ReadonlyArray<readonly [string, string]>): string {
  return params.map(([n, v]) => `${encodeRfc3986(n)}=${encodeRfc3986(v)}`).join('&');
}
