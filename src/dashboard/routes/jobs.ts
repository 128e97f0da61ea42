import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import type { Jobs } from '../../jobs/module.js';
import type { ItemStatus, JobCursor } from '../../jobs/store/types.js';
import { itemView, paths } from '../../jobs/view.js';
import { systemClock } from '../../lib/clock.js';
import { type DashboardDeps, seeOther, sendPage, sessionOf } from '../context.js';
import { cancelJobPage, ITEM_FILTERS, jobPage, jobsPage } from '../views/jobs.js';

const PAGE = 20;
const ITEMS_PAGE = 25;
const JOB_ID = /^job_[A-Za-z0-9_-]{16}$/;

type Params = { Params: { id: string } };
type ListQuery = { Querystring: { cursor?: string; notice?: string } };
type ItemQuery = { Querystring: { status?: string; after?: string; notice?: string } };

/**
 * The Jobs pages: the account's jobs, one job's progress and items (with their errors), the
 * zip, and cancel with a confirmation. Everything goes through the jobs service, which answers
 * another account's job as missing; item and zip links are the API's signed result links.
 */
export function registerJobPages(scope: FastifyInstance, deps: DashboardDeps): void {
  const clock = deps.clock ?? systemClock;
  const page = { config: { dashboard: 'page' as const } };

  const area = (): Jobs => {
    if (!deps.jobs) throw new AppError('not_found', 'This server does not run jobs.');
    return deps.jobs;
  };
  /** The signed-in account's job and its counts; the jobs service's 404 for anyone else's. */
  const ownJob = async (req: FastifyRequest<Params>) => {
    if (!JOB_ID.test(req.params.id)) throw new AppError('not_found', 'There is no such job.');
    return area().service.get(sessionOf(req).account.id, req.params.id);
  };

  scope.get<ListQuery>('/jobs', page, async (req, reply) => {
    const { account } = sessionOf(req);
    const { service } = area();
    const after = cursorOf(req.query.cursor);
    const jobs = await service.list(account.id, after, PAGE);
    const rows = await Promise.all(jobs.map((j) => service.get(account.id, j.id)));
    const last = jobs.at(-1);
    return sendPage(
      reply,
      jobsPage({
        account,
        csrf: req.dash!.csrf,
        rows,
        now: clock.now(),
        next: last && jobs.length === PAGE ? `${last.createdAt}.${last.id}` : null,
        first: after === undefined,
        notice:
          req.query.notice === 'canceled' ? 'The job is canceled: its waiting items will not run.' : null,
      }),
    );
  });

  scope.get<Params & ItemQuery>('/jobs/:id', page, async (req, reply) => {
    const { account } = sessionOf(req);
    const row = await ownJob(req);
    const filter = (ITEM_FILTERS as readonly string[]).includes(req.query.status ?? '')
      ? (req.query.status as (typeof ITEM_FILTERS)[number])
      : 'all';
    const after = /^\d{1,5}$/.test(req.query.after ?? '') ? Number(req.query.after) : undefined;
    const { links, service } = area();
    const { job, items } = await service.items(account.id, row.job.id, {
      limit: ITEMS_PAGE,
      ...(filter === 'all' ? {} : { status: filter as ItemStatus }),
      ...(after === undefined ? {} : { after }),
    });
    // Relative links: the page and the images share this origin, whatever the Host header says.
    const lines = items.map((i) => itemView(job, i, '', links));
    return sendPage(
      reply,
      jobPage({
        account,
        csrf: req.dash!.csrf,
        row,
        items: lines,
        filter,
        next: items.length === ITEMS_PAGE ? String(items.at(-1)!.index) : null,
        zipUrl: links.sign(paths.zip(job.id), job.expiresAt),
        notice:
          req.query.notice === 'canceled' ? 'The job is canceled: its waiting items will not run.' : null,
      }),
    );
  });

  scope.get<Params>('/jobs/:id/cancel', page, async (req, reply) => {
    const row = await ownJob(req);
    if (row.job.status !== 'queued' && row.job.status !== 'running') {
      return seeOther(reply, `/dashboard/jobs/${row.job.id}`);
    }
    return sendPage(reply, cancelJobPage({ account: sessionOf(req).account, csrf: req.dash!.csrf, row }));
  });

  scope.post<Params>('/jobs/:id/cancel', page, async (req, reply) => {
    const row = await ownJob(req);
    await area().service.cancel(sessionOf(req).account.id, row.job.id);
    req.log.info({ account: row.job.accountId, job: row.job.id }, 'dashboard: job canceled');
    return seeOther(reply, `/dashboard/jobs/${row.job.id}?notice=canceled`);
  });
}

/** `<createdAt>.<id>` from the Older link; anything else starts from the newest. */
function cursorOf(text: string | undefined): JobCursor | undefined {
  const m = /^(\d{1,15})\.(job_[A-Za-z0-9_-]{16})$/.exec(text ?? '');
  return m ? { createdAt: Number(m[1]), id: m[2]! } : undefined;
}
