/** What the screenshot service answers, and its API as the HTTP layer sees it. */
import type { Plan } from '../../auth/plans.js';
import type { PoolStatus } from './engine/browser/pool.js';
import type { Capture } from './engine/page/capture.js';
import type { PageFacts } from './engine/page/page-facts.js';
import type { ShotFormat } from './options.js';
import type { ScreenshotRequest } from './request.js';
import type { Viewport } from './viewports.js';

export type { PageFacts };

/** Milliseconds per phase, for Server-Timing. */
export type ShotTimings = Partial<
  Record<
    | 'cache'
    | 'wait'
    | 'queue'
    | 'launch'
    | 'context'
    | 'navigate'
    | 'fonts'
    | 'prepare'
    | 'capture'
    | 'encode',
    number
  >
>;

/** What a screenshot request resolves to. `maxAge` and `age` are seconds, for Cache-Control and Age. */
export type ShotResult = {
  etag: string;
  cache: 'HIT' | 'MISS';
  maxAge: number;
  age: number;
  /** HTTP status of the screenshotted page (4xx/5xx pages are rendered, and cached briefly). */
  targetStatus: number;
  /** The format of the body (the `format` option; png by default). */
  format: ShotFormat;
  /** A full-page capture's page height in CSS pixels (X-Page-Height). */
  pageHeight?: number;
  /** The maximum height cut the capture short (X-Full-Page-Truncated), or a PDF's page bound (X-Pdf-Truncated). */
  truncated?: true;
  /** A PDF's page count (X-Pdf-Pages). */
  pages?: number;
  /** What the page is (response=json), and where it ended up. */
  page?: PageFacts;
  finalUrl?: string;
  timings: ShotTimings;
} & ({ kind: 'not-modified' } | { kind: 'png'; body: Buffer });

/** The account a screenshot is for: its cache scope and its share of the queue. */
export interface ShotOwner {
  accountId: string;
  plan: Plan;
}

export interface ScreenshotService {
  /**
   * Cache, 304 decision, coalescing, queue and capture, in that order. A capture is shared by
   * identical concurrent requests; `signal` aborts when a client has gone: its wait ends, and a
   * capture no other request waits for stops and frees its slot. `owner` scopes the cache to the
   * account (unless the cache is shared) and takes the capture from its share of the queue.
   */
  resolve(
    req: ScreenshotRequest,
    opts?: { ifNoneMatch?: string; signal?: AbortSignal; owner?: ShotOwner },
  ): Promise<ShotResult>;
  /**
   * Takes the screenshot now: queue, browser, one retry after a crash; no cache, no coalescing.
   * For layers that add their own (cross-node single-flight, metrics).
   */
  capture(
    req: ScreenshotRequest,
    owner?: ShotOwner,
  ): Promise<Omit<Capture, 'timings'> & { timings: ShotTimings }>;
  /** Presets a request may name: og, desktop, mobile and the configured ones. */
  readonly viewports: ReadonlyMap<string, Viewport>;
  /** Browser and queue state, for health checks and metrics. */
  status(): ScreenshotStatus;
  /** Starts Chromium and fills the spare contexts now (the server calls it after listening). */
  warm(): Promise<void>;
  close(): Promise<void>;
}

/** What /readyz and the metrics read of the screenshot engine. */
export interface ScreenshotStatus {
  /** False when the configured Chromium executable does not exist. */
  installed: boolean;
  executablePath: string;
  browser: PoolStatus;
  queue: { active: number; waiting: number; concurrency: number };
}
