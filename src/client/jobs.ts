import { CardshotError } from './errors.js';
import {
  type Downloaded,
  type DownloadOptions,
  type DownloadTarget,
  FINAL_JOB_STATUSES,
  type ItemPage,
  type Job,
  type JobInput,
  type JobItem,
  type JobPage,
  type PageOptions,
  type SubmitOptions,
  type SubmittedJob,
  type WaitOptions,
} from './job-types.js';
import { send, sendJson, sleep, type TransportOptions } from './transport.js';

const enc = encodeURIComponent;

/**
 * The jobs API (POST/GET /jobs…): many cards and screenshots rendered in the background, their
 * images kept for the plan's retention. Reached as `cardshot.jobs`.
 */
export class JobsApi {
  constructor(private readonly t: TransportOptions) {}

  /** POST /jobs with items as JSON. 202 makes a job; an Idempotency-Key seen before answers its job. */
  submit(input: JobInput, opts: SubmitOptions = {}): Promise<SubmittedJob> {
    return this.post(JSON.stringify(input), 'application/json', '', opts);
  }

  /**
   * POST /jobs with a CSV body: a header row of field names (template, title, … or url,
   * viewport, …), one item per row. `webhook` names the endpoint to tell when it ends.
   */
  submitCsv(csv: string, opts: SubmitOptions & { webhook?: string } = {}): Promise<SubmittedJob> {
    const query = opts.webhook === undefined ? '' : `?webhook=${enc(opts.webhook)}`;
    return this.post(csv, 'text/csv', query, opts);
  }

  /** GET /jobs/:id: its state and item counts. */
  get(id: string, call: { signal?: AbortSignal } = {}): Promise<Job> {
    return sendJson<Job>(this.t, 'GET', `/jobs/${enc(id)}`, undefined, call);
  }

  /** GET /jobs: one page of the account's jobs, newest first. */
  list(opts: Omit<PageOptions, 'status'> = {}): Promise<JobPage> {
    return sendJson<JobPage>(this.t, 'GET', `/jobs${pageQuery(opts)}`, undefined, opts);
  }

  /** GET /jobs/:id/items: one page of the job's items in index order (with `status`, those only). */
  items(id: string, opts: PageOptions = {}): Promise<ItemPage> {
    return sendJson<ItemPage>(this.t, 'GET', `/jobs/${enc(id)}/items${pageQuery(opts)}`, undefined, opts);
  }

  /** Every item of the job (of one state with `status`), page after page. */
  async *allItems(id: string, opts: Omit<PageOptions, 'cursor'> = {}): AsyncGenerator<JobItem> {
    let cursor: string | undefined;
    do {
      const page = await this.items(id, { ...opts, ...(cursor === undefined ? {} : { cursor }) });
      yield* page.items;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  /** DELETE /jobs/:id: queued items never run, running ones finish; the job as it is now. */
  cancel(id: string, call: { signal?: AbortSignal } = {}): Promise<Job> {
    return sendJson<Job>(this.t, 'DELETE', `/jobs/${enc(id)}`, undefined, call);
  }

  /**
   * Polls GET /jobs/:id until the job has ended (completed, failed or canceled) and returns it.
   * Pauses start at `intervalMs` and grow to `maxIntervalMs`, so a long job costs few requests;
   * a 429 waits for its Retry-After and polls on.
   */
  async wait(id: string, opts: WaitOptions = {}): Promise<Job> {
    const started = Date.now();
    const max = opts.maxIntervalMs ?? 5000;
    let pause = Math.min(opts.intervalMs ?? 500, max);
    let status = 'queued';
    for (;;) {
      // A 429 (the account's reads of its jobs are spent: other code of yours polls too) waits
      // as long as Retry-After says, then asks again; it never ends the wait.
      let wait = pause;
      try {
        const job = await this.get(id, opts.signal ? { signal: opts.signal } : {});
        opts.onProgress?.(job);
        if (FINAL_JOB_STATUSES.includes(job.status)) return job;
        status = job.status;
        pause = Math.min(max, Math.ceil(pause * 1.5));
      } catch (err) {
        if (!(err instanceof CardshotError) || err.status !== 429) throw err;
        wait = Math.max(pause, (err.retryAfter ?? 1) * 1000);
      }
      const left = opts.timeoutMs === undefined ? Infinity : opts.timeoutMs - (Date.now() - started);
      if (left <= 0) {
        throw new CardshotError(`Job ${id} is still ${status} after ${opts.timeoutMs} ms`, {
          status: 0,
          code: 'timeout',
        });
      }
      await sleep(Math.min(wait, left), opts.signal);
    }
  }

  /**
   * Streams the zip of every finished item (or, with `index`, one item's image) to `to`, never
   * holding it whole in memory. A file is written beside its name first and renamed when
   * complete, so an interrupted download leaves no truncated file behind.
   */
  async download(id: string, to: DownloadTarget, opts: DownloadOptions = {}): Promise<Downloaded> {
    const path =
      opts.index === undefined ? `/jobs/${enc(id)}/results.zip` : `/jobs/${enc(id)}/items/${opts.index}`;
    const res = await send(this.t, path, { method: 'GET' }, { stream: true, signal: opts.signal });
    const body = res.body;
    if (!body) throw new CardshotError(`Cardshot sent no body for ${path}`, { status: res.status });
    let bytes = 0;
    const counted = body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          bytes += chunk.byteLength;
          out.enqueue(chunk);
        },
      }),
    );
    try {
      await writeTo(counted, to);
    } catch (err) {
      if (err instanceof CardshotError) throw err;
      if (opts.signal?.aborted)
        throw new CardshotError('The request was aborted', { status: 0, code: 'aborted', cause: err });
      throw new CardshotError(`Download of ${path} failed: ${(err as Error).message}`, {
        status: 0,
        code: 'network',
        cause: err,
      });
    }
    return {
      bytes,
      contentType: res.headers.get('content-type') ?? '',
      etag: res.headers.get('etag') ?? '',
    };
  }

  private async post(body: string, type: string, query: string, opts: SubmitOptions): Promise<SubmittedJob> {
    const headers: Record<string, string> = { 'content-type': type, accept: 'application/json' };
    if (opts.idempotencyKey !== undefined) headers['idempotency-key'] = opts.idempotencyKey;
    const res = await send(this.t, `/jobs${query}`, { method: 'POST', headers, body }, opts);
    const job = (await res.json()) as Omit<SubmittedJob, 'created'>;
    return { ...job, created: res.status === 202 };
  }
}

function pageQuery(opts: PageOptions): string {
  const q = new URLSearchParams();
  if (opts.status !== undefined) q.set('status', opts.status);
  if (opts.cursor !== undefined) q.set('cursor', opts.cursor);
  if (opts.limit !== undefined) q.set('limit', String(opts.limit));
  const s = q.toString();
  return s === '' ? '' : `?${s}`;
}

/**
 * The parts of Node's fs/promises a download to a path uses, typed here so the client's types
 * need no @types/node: an app for browsers or edge runtimes type-checks without them.
 */
interface FileSystem {
  open(
    path: string,
    flags: string,
  ): Promise<{ write(chunk: Uint8Array): Promise<unknown>; close(): Promise<void> }>;
  rename(from: string, to: string): Promise<void>;
  rm(path: string, opts: { force: boolean }): Promise<void>;
}
/** A variable, not a literal: TypeScript then asks for no node types, and bundlers leave it alone. */
const FS_PROMISES = 'node:fs/promises';

async function writeTo(body: ReadableStream<Uint8Array>, to: DownloadTarget): Promise<void> {
  if (typeof to !== 'string' && 'getWriter' in to) return body.pipeTo(to);
  if (typeof to !== 'string') return writeToNodeStream(body, to);
  // Node only: imported here so the client still loads where node: modules do not exist.
  const fs = (await import(FS_PROMISES)) as FileSystem;
  const part = `${to}.part`;
  const file = await fs.open(part, 'w');
  try {
    for await (const chunk of chunks(body)) await file.write(chunk);
    await file.close();
    await fs.rename(part, to);
  } catch (err) {
    await file.close().catch(() => {});
    await fs.rm(part, { force: true });
    throw err;
  }
}

/** Writes to a Node writable, waiting for 'drain' when it asks the writer to pause. */
async function writeToNodeStream(
  body: ReadableStream<Uint8Array>,
  to: Exclude<DownloadTarget, string | WritableStream<Uint8Array>>,
): Promise<void> {
  for await (const chunk of chunks(body)) {
    if (to.write(chunk) === false) await new Promise<void>((resolve) => to.once('drain', resolve));
  }
  await new Promise<void>((resolve) => {
    to.once('finish', resolve);
    to.end();
  });
}

async function* chunks(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}
