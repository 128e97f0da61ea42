import type { ReadStream } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthContext, Authenticator } from '../../auth/authenticate.js';
import { AUTH_QUERY_PARAMS } from '../../auth/authenticate.js';
import { etagMatches } from '../../cache/etag.js';
import { baseUrl } from '../../dashboard/context.js';
import { AppError } from '../../errors.js';
import { carriesLink } from '../../jobs/links.js';
import type { Jobs } from '../../jobs/module.js';
import { POLL_POLICY, spendPoll } from '../../jobs/poll-budget.js';
import { ITEM_STATUSES, type ItemStatus, type JobCursor } from '../../jobs/store/types.js';
import { readCsvSubmission, readJsonSubmission } from '../../jobs/submission.js';
import { itemView, jobView, paths, submittedView } from '../../jobs/view.js';
import { zipResults } from '../../jobs/zip.js';
import type { RateLimiter } from '../../ratelimit/limiter.js';
import { logAppError, sendError, toAppError } from '../errors.js';
import { documentOnly } from '../schemas/common.js';
import * as schemas from '../schemas/jobs.js';
import type { HttpConfig } from '../settings.js';

/** A job's body may hold 10,000 items: far above the card routes' limit (issue 28 §3). */
export const JOB_BODY_LIMIT = 10 * 1024 * 1024;
const JOB_ID = /^job_[A-Za-z0-9_-]{16}$/;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const DEFAULT_PAGE = 20;
const MAX_PAGE = 100;

/**
 * The jobs API (issue 28 §1). Every route takes an API key (header or api_key); an item's image
 * and the results zip also take a signed result link instead, so a webhook receiver can fetch
 * them without a key. A job is its account's only: anyone else gets 404, as for a job that
 * does not exist.
 */
export function registerJobRoutes(
  app: FastifyInstance,
  deps: {
    jobs: Jobs;
    authenticator: Authenticator;
    limiter: RateLimiter;
    config: Pick<HttpConfig, 'publicUrl'>;
  },
): void {
  const { service, links, files, store } = deps.jobs;
  // Items and their CSV arrive here only: every other route keeps refusing text/csv (415).
  app.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: JOB_BODY_LIMIT }, (_req, body, done) =>
    done(null, body),
  );
  // The 413 names this route's limit, not the card routes' 16 KiB.
  app.setErrorHandler((err: unknown, req: FastifyRequest, reply: FastifyReply) => {
    const appErr = toAppError(err, JOB_BODY_LIMIT);
    logAppError(req.log, appErr, err);
    return sendError(reply, appErr);
  });

  const caller = async (req: FastifyRequest): Promise<AuthContext> => {
    const query = (req.query ?? {}) as Record<string, unknown>;
    const auth = await deps.authenticator.authenticate({
      method: req.method,
      path: req.url.split('?', 1)[0] ?? '/',
      headers: req.headers,
      query,
    });
    for (const p of AUTH_QUERY_PARAMS) delete query[p];
    return auth;
  };
  /** The caller of a read, counted against its account's poll budget (poll-budget.ts). */
  const reader = async (req: FastifyRequest, reply: FastifyReply): Promise<AuthContext> => {
    const auth = await caller(req);
    const limit = deps.jobs.pollLimit;
    const d = await spendPoll(deps.limiter, auth.accountId, limit);
    reply.header('RateLimit-Policy', `"${POLL_POLICY}";q=${limit};w=${Math.round(d.windowMs / 1000)}`);
    reply.header('RateLimit', `"${POLL_POLICY}";r=${d.remaining};t=${Math.ceil(d.resetMs / 1000)}`);
    return auth;
  };
  const origin = (req: FastifyRequest) => baseUrl(req, deps.config);
  const jobId = (req: FastifyRequest) => {
    const id = (req.params as { id: string }).id;
    if (!JOB_ID.test(id)) throw new AppError('not_found', 'No such job');
    return id;
  };
  /** The account a result request is for: a valid signed link names none (the job is enough). */
  const resultAccess = async (req: FastifyRequest, path: string): Promise<string | undefined> => {
    const query = (req.query ?? {}) as Record<string, unknown>;
    if (!carriesLink(query)) return (await caller(req)).accountId;
    if (!links.verify(path, query, Date.now())) {
      throw new AppError(
        'unauthorized',
        'This result link is not valid or has expired; ask GET /jobs/:id for a fresh one',
        {
          detail: `bad or expired link for ${path}`,
        },
      );
    }
    return undefined;
  };

  app.post('/jobs', { ...documentOnly(schemas.submit), bodyLimit: JOB_BODY_LIMIT }, async (req, reply) => {
    const auth = await caller(req);
    const key = idempotencyKey(req);
    const csv = /^text\/csv\b/i.test(req.headers['content-type'] ?? '');
    const sub = csv
      ? readCsvSubmission(String(req.body ?? ''), req.query as Record<string, unknown>)
      : readJsonSubmission(req.body);
    if (!csv) rejectQuery(req);
    const { created, job } = await service.submit({ accountId: auth.accountId, plan: auth.plan }, sub, key);
    const view = submittedView(job, origin(req));
    reply.header('Location', view.statusUrl);
    reply.header('Cache-Control', 'no-store');
    return reply.code(created ? 202 : 200).send(view);
  });

  app.get('/jobs', documentOnly(schemas.list), async (req, reply) => {
    const auth = await reader(req, reply);
    const q = req.query as Record<string, unknown>;
    const limit = pageSize(q.limit);
    const after = jobCursor(q.cursor);
    const jobs = await service.list(auth.accountId, after, limit);
    const at = origin(req);
    const views = await Promise.all(jobs.map(async (j) => jobView(j, await store.counts(j.id), at, links)));
    const last = jobs[jobs.length - 1];
    reply.header('Cache-Control', 'no-store');
    return reply.send({
      jobs: views,
      nextCursor: last && jobs.length === limit ? encodeCursor(`${last.createdAt}:${last.id}`) : null,
    });
  });

  app.get('/jobs/:id', documentOnly(schemas.get), async (req, reply) => {
    const auth = await reader(req, reply);
    const { job, counts } = await service.get(auth.accountId, jobId(req));
    reply.header('Cache-Control', 'no-store');
    return reply.send(jobView(job, counts, origin(req), links));
  });

  app.delete('/jobs/:id', documentOnly(schemas.cancel), async (req, reply) => {
    const auth = await caller(req);
    const { job, counts } = await service.cancel(auth.accountId, jobId(req));
    reply.header('Cache-Control', 'no-store');
    return reply.send(jobView(job, counts, origin(req), links));
  });

  app.get('/jobs/:id/items', documentOnly(schemas.items), async (req, reply) => {
    const auth = await reader(req, reply);
    const q = req.query as Record<string, unknown>;
    const limit = pageSize(q.limit);
    const status = itemStatus(q.status);
    const after = itemCursor(q.cursor);
    const { job, items } = await service.items(auth.accountId, jobId(req), {
      limit,
      ...(status ? { status } : {}),
      ...(after !== undefined ? { after } : {}),
    });
    const at = origin(req);
    const last = items[items.length - 1];
    reply.header('Cache-Control', 'no-store');
    return reply.send({
      items: items.map((i) => itemView(job, i, at, links)),
      nextCursor: last && items.length === limit ? encodeCursor(String(last.index)) : null,
    });
  });

  app.get('/jobs/:id/items/:index', documentOnly(schemas.item), async (req, reply) => {
    const id = jobId(req);
    const raw = (req.params as { index: string }).index;
    if (!/^\d{1,5}$/.test(raw))
      throw new AppError('not_found', `No item ${JSON.stringify(raw.slice(0, 20))} in job ${id}`);
    const index = Number(raw);
    const account = await resultAccess(req, paths.item(id, index));
    const { item } = await service.item(id, index, account);
    const result = item.result!;
    // The synchronous render's ETag: a client holding that image gets 304 here too.
    reply.header('ETag', `"${result.etag}"`);
    reply.header('Cache-Control', 'private, max-age=3600');
    const inm = req.headers['if-none-match'];
    if (typeof inm === 'string' && etagMatches(inm, result.etag)) return reply.code(304).send();
    const body = await opened(files.read(result.file), `item ${index} of ${id}`);
    reply.type(result.contentType);
    reply.header('Content-Length', String(result.bytes));
    return reply.code(200).send(body);
  });

  app.get('/jobs/:id/results.zip', documentOnly(schemas.zip), async (req, reply) => {
    const id = jobId(req);
    const account = await resultAccess(req, paths.zip(id));
    const job = await store.getJob(id, account);
    if (!job) throw new AppError('not_found', 'No such job');
    reply.type('application/zip');
    reply.header('Content-Disposition', `attachment; filename="${id}.zip"`);
    reply.header('Cache-Control', 'private, no-store');
    return reply.code(200).send(zipResults(store, files, id, job.total));
  });
}

/**
 * The file once it is open: a result the store names but this node cannot read (a node whose
 * results directory is not the shared one, or files removed by hand) is a clear 503 before any
 * header is sent, never a 200 with a broken body.
 */
function opened(stream: ReadStream, what: string): Promise<ReadStream> {
  return new Promise((resolve, reject) => {
    stream.once('open', () => resolve(stream));
    stream.once('error', (err: NodeJS.ErrnoException) => {
      stream.destroy();
      reject(
        new AppError(
          'unavailable',
          `The image of ${what} cannot be read on this server right now; try again later`,
          {
            retryAfter: 30,
            detail: `result file of ${what}: ${err.code ?? err.message} (is CARDSHOT_JOBS_RESULTS_DIR the directory every node shares?)`,
            cause: err,
          },
        ),
      );
    });
  });
}

function idempotencyKey(req: FastifyRequest): string | undefined {
  const raw = req.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !IDEMPOTENCY_KEY.test(raw)) {
    throw new AppError('bad_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters, sent once');
  }
  return raw;
}

/** Items come in the body; a stray query parameter would be silently ignored, so it is refused. */
function rejectQuery(req: FastifyRequest): void {
  const stray = Object.keys((req.query ?? {}) as object);
  if (stray.length > 0) {
    throw new AppError(
      'bad_request',
      `POST /jobs reads its items from the body, not the query string (got ${JSON.stringify(stray[0]!.slice(0, 40))})`,
    );
  }
}

function pageSize(raw: unknown): number {
  if (raw === undefined || raw === '') return DEFAULT_PAGE;
  const n = typeof raw === 'string' && /^\d{1,4}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 1 && n <= MAX_PAGE))
    throw new AppError('bad_request', `limit must be a whole number from 1 to ${MAX_PAGE}`);
  return n;
}

function itemStatus(raw: unknown): ItemStatus | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || !(ITEM_STATUSES as readonly string[]).includes(raw)) {
    throw new AppError('bad_request', `status must be one of: ${ITEM_STATUSES.join(', ')}`);
  }
  return raw as ItemStatus;
}

const encodeCursor = (s: string) => Buffer.from(s).toString('base64url');
const BAD_CURSOR = 'cursor is not valid: pass the nextCursor of the previous page as it was';

function decodeCursor(raw: unknown): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || !/^[A-Za-z0-9_-]{1,200}$/.test(raw))
    throw new AppError('bad_request', BAD_CURSOR);
  return Buffer.from(raw, 'base64url').toString();
}

function jobCursor(raw: unknown): JobCursor | undefined {
  const text = decodeCursor(raw);
  if (text === undefined) return undefined;
  const m = /^(\d{1,15}):(job_[A-Za-z0-9_-]{16})$/.exec(text);
  if (!m) throw new AppError('bad_request', BAD_CURSOR);
  return { createdAt: Number(m[1]), id: m[2]! };
}

function itemCursor(raw: unknown): number | undefined {
  const text = decodeCursor(raw);
  if (text === undefined) return undefined;
  if (!/^\d{1,5}$/.test(text)) throw new AppError('bad_request', BAD_CURSOR);
  return Number(text);
}
