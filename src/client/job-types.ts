import type { ScreenshotInput, TemplateInput } from './cardshot.js';

/** A job's state: queued until its first item runs, then running until every item has ended. */
export type JobStatus = 'queued' | 'running' | 'completed' | 'failed' | 'canceled';
/** An item's state; `canceled` items never ran (their job was canceled first). */
export type ItemStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';
/** The states after which a job never changes again. */
export const FINAL_JOB_STATUSES: readonly JobStatus[] = ['completed', 'failed', 'canceled'];

/**
 * One item of a job: a card (as POST /render/template takes it) or a screenshot (as POST
 * /render/url takes it: its `headers`, `cookies`, `basicAuth` and `userAgent` included, stored
 * sealed with the server secret and cleared once the item has ended).
 */
export type JobItemInput = TemplateInput | ScreenshotInput;

/** POST /jobs's JSON body. */
export interface JobInput {
  /** 1 to 10,000 items (fewer on some plans); every one is checked before any is queued. */
  items: readonly JobItemInput[];
  /** The id of one of your webhook endpoints (`ep_…`) to tell when the job ends. */
  webhook?: string;
  /** Yours, echoed in the job and its events (at most 4 KB of JSON). */
  metadata?: Record<string, unknown>;
  /** `s3`: each succeeded item is also uploaded to your storage target (POST /storage). */
  store?: 's3';
  /** The storage target (`st_…`) when your account has several. */
  storage?: string;
}

export interface SubmitOptions {
  /**
   * The same key from the same account within 24 h answers the job it made (`created: false`)
   * instead of making a second: set it when a submission may be retried.
   */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** POST /jobs's answer. */
export interface SubmittedJob {
  id: string;
  status: JobStatus;
  /** How many items the job holds. */
  items: number;
  /** GET this for the job's progress. */
  statusUrl: string;
  /** False when an Idempotency-Key answered a job made earlier. */
  created: boolean;
}

/** GET /jobs/:id. */
export interface Job {
  id: string;
  status: JobStatus;
  /** How many items the job holds. */
  items: number;
  counts: Record<ItemStatus, number>;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  /** When the job and its files are deleted (the plan's retention). */
  expiresAt: string;
  /** A signed link to the zip of finished items: works without a key until the job expires. */
  resultsUrl: string;
  webhook: string | null;
  metadata: Record<string, unknown> | null;
}

/** A finished item's image. */
export interface ItemResult {
  /** A signed link: works without a key until the job expires. */
  url: string;
  contentType: string;
  bytes: number;
  /** As the ETag header writes it, quotes included. */
  etag: string;
  width: number;
  height: number;
}

/** One entry of GET /jobs/:id/items. */
export interface JobItem {
  index: number;
  status: ItemStatus;
  /** `site-page`: a page of a site read and its card drawn (the items of `sites.warm`). */
  kind: 'card' | 'screenshot' | 'site-page';
  /** Why it failed, in the synchronous route's words. */
  error?: string;
  result: ItemResult | null;
}

/** A page of GET /jobs, newest first; pass `nextCursor` as `cursor` for the next (null: the last). */
export interface JobPage {
  jobs: Job[];
  nextCursor: string | null;
}

/** A page of GET /jobs/:id/items, in index order; `nextCursor` as for JobPage. */
export interface ItemPage {
  items: JobItem[];
  nextCursor: string | null;
}

export interface PageOptions {
  cursor?: string;
  /** Items only: those in this state. */
  status?: ItemStatus;
  /** 1–100; default 20. */
  limit?: number;
  signal?: AbortSignal;
}

export interface WaitOptions {
  /** The first pause between two polls; default 500 ms. */
  intervalMs?: number;
  /** Pauses grow by half each poll up to this; default 5 s. */
  maxIntervalMs?: number;
  /** Give up (a CardshotError with code `timeout`) after this long; default never. */
  timeoutMs?: number;
  /** Stops waiting (a CardshotError with code `aborted`); the job itself goes on. */
  signal?: AbortSignal;
  /** Called with every poll's answer, for a progress display. */
  onProgress?: (job: Job) => void;
}

/** Where `jobs.download` writes: a file path (Node), a web WritableStream, or a Node writable (ended when done). */
export type DownloadTarget =
  | string
  | WritableStream<Uint8Array>
  | { write(chunk: Uint8Array): unknown; end(): unknown; once(event: string, cb: () => void): unknown };

export interface DownloadOptions {
  /** One item's image instead of the zip of every finished item. */
  index?: number;
  signal?: AbortSignal;
}

/** What `jobs.download` wrote. */
export interface Downloaded {
  bytes: number;
  contentType: string;
  /** The item's ETag (empty for a zip). */
  etag: string;
}
