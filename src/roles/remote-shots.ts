/**
 * The screenshot service of an API node (CARDSHOT_ROLE=api): no browser here; each screenshot
 * is a row in PostgreSQL that a worker claims (woken by NOTIFY), captures with its own service
 * (cache, coalescing, its account's share of the browser) and answers in the same row, waking
 * this node by NOTIFY. The render command in front of it is the same as on an `all` node, so the
 * plan, the rate limit and usage are applied once, here; the cache once, on the worker.
 *
 * Never a hang: the wait is bounded by the screenshot time-out (plus a second for the trip); no
 * worker connected answers 503 at once; a worker that dies mid-capture (its PostgreSQL session
 * ends) is noticed within a second and the task runs again on another worker while time
 * remains, else 503.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';
import { type Area, startArea } from '../area.js';
import type { ServerSecrets } from '../auth/secret.js';
import { AppError, clientClosed } from '../errors.js';
import { overShare } from '../render/screenshot/service/queue-share.js';
import type { ScreenshotConfig } from '../render/screenshot/settings.js';
import type { ScreenshotService, ScreenshotStatus, ShotResult } from '../render/screenshot/types.js';
import { viewportCatalogue } from '../render/screenshot/viewports.js';
import { listen } from './pg-listen.js';
import { collectSpilled } from './shot-spill.js';
import { decodeResult, encodeRequest, type ShotMeta } from './shot-wire.js';
import {
  abandonSql,
  collectSql,
  createShotTableSql,
  enqueueSql,
  requeueSql,
  type ShotNames,
  shotNames,
  watchSql,
} from './shots-sql.js';

/** How often a waiting request checks that its worker is still connected. */
const WATCH_MS = 1000;
/** Runs of one screenshot (the first and one more after its worker died). */
const RUNS = 2;
/** Time for the trip through PostgreSQL on top of the screenshot time-out. */
const TRIP_MS = 1000;
/**
 * A waiting task with no worker connected waits this long for one (a worker restarting in a
 * rolling update, the replacement of one that died) before 503.
 */
const NO_WORKER_GRACE_MS = 3000;

export const NO_WORKER =
  'Screenshots are temporarily unavailable: no worker node is running to take them (CARDSHOT_ROLE=worker)';
export const WORKER_LOST = 'Screenshots are temporarily unavailable: the worker taking this one stopped';

export interface RemoteShotDeps {
  connectionString: string;
  /** The queue's schema: the table lives beside pg-boss's (see shots-sql.ts). */
  queueSchema: string;
  secrets: Pick<ServerSecrets, 'seal'>;
  /** Where workers leave large answers (shot-spill.ts). */
  spillDir?: string;
  log: Logger;
}

/** Creates the API node's screenshot service over PostgreSQL. */
export function createRemoteScreenshotArea(
  config: Pick<ScreenshotConfig, 'screenshotTimeoutMs' | 'screenshotViewports' | 'screenshotQueueSize'>,
  deps: RemoteShotDeps,
): Promise<Area<ScreenshotService>> {
  const log = deps.log.child({ area: 'remote screenshots' });
  return startArea(log, async (parts) => {
    const names = shotNames(deps.queueSchema);
    const pool = new pg.Pool({
      connectionString: deps.connectionString,
      max: 8,
      connectionTimeoutMillis: 5000,
      keepAlive: true,
      application_name: 'cardshot-api',
    });
    pool.on('error', () => {});
    pool.on('connect', (c) => c.on('error', () => {}));
    parts.add('remote screenshot pool', () => pool.end());
    await pool.query(createShotTableSql(names, deps.queueSchema));
    const waiters = new Map<string, () => void>();
    const listener = await listen({
      connectionString: deps.connectionString,
      channels: [names.doneChannel],
      applicationName: 'cardshot-api-listen',
      onNotify: (_channel, id) => waiters.get(id)?.(),
      // Answers may have come meanwhile: every waiter looks.
      onReconnect: () => {
        for (const wake of waiters.values()) wake();
      },
      onError: (err) => log.warn({ err }, 'screenshot answer listener lost its connection (reconnecting)'),
    });
    parts.add('remote screenshot listener', () => listener.close());
    const service = remoteScreenshots(config, {
      pool,
      names,
      waiters,
      secrets: deps.secrets,
      ...(deps.spillDir ? { spillDir: deps.spillDir } : {}),
      log,
    });
    return {
      service,
      checks: {
        workers: {
          critical: false,
          run: async () => {
            const { rows } = await pool.query<{ n: number }>(
              'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
              [names.workerApp],
            );
            const n = rows[0]?.n ?? 0;
            if (n === 0) throw new Error('no worker node is connected: screenshots answer 503');
            return `${n} worker node${n === 1 ? '' : 's'} connected; ${service.status().queue.active} screenshots in flight from this node`;
          },
          fix: 'start at least one node with CARDSHOT_ROLE=worker on the same DATABASE_URL (docs/deploy.md)',
        },
      },
    };
  });
}

function remoteScreenshots(
  config: Pick<ScreenshotConfig, 'screenshotTimeoutMs' | 'screenshotViewports' | 'screenshotQueueSize'>,
  deps: {
    pool: pg.Pool;
    names: ShotNames;
    waiters: Map<string, () => void>;
    secrets: Pick<ServerSecrets, 'seal'>;
    spillDir?: string;
    log: Logger;
  },
): ScreenshotService {
  const { pool, names, waiters, log } = deps;
  const viewports = viewportCatalogue(config.screenshotViewports);
  const timeoutMs = config.screenshotTimeoutMs;
  /** Requests of each account in flight from this node: bounded by the plan's share. */
  const perAccount = new Map<string, number>();
  let inFlight = 0;

  const resolve: ScreenshotService['resolve'] = async (req, opts = {}) => {
    opts.signal?.throwIfAborted();
    const owner = opts.owner;
    if (owner && owner.plan.screenshots !== false) {
      const { concurrency, queue } = owner.plan.screenshots;
      if ((perAccount.get(owner.accountId) ?? 0) >= concurrency + queue) {
        throw overShare(owner.plan, concurrency);
      }
    }
    if (inFlight >= config.screenshotQueueSize * 4 + 64) {
      throw new AppError('unavailable', 'The screenshot renderer is busy; retry shortly', {
        retryAfter: 2,
        detail: `${inFlight} remote screenshots in flight from this API node`,
      });
    }
    const account = owner?.accountId ?? '';
    perAccount.set(account, (perAccount.get(account) ?? 0) + 1);
    inFlight++;
    try {
      return await runRemote(req, opts);
    } finally {
      inFlight--;
      const left = (perAccount.get(account) ?? 1) - 1;
      if (left === 0) perAccount.delete(account);
      else perAccount.set(account, left);
    }
  };

  const runRemote = async (
    req: Parameters<ScreenshotService['resolve']>[0],
    opts: NonNullable<Parameters<ScreenshotService['resolve']>[1]>,
  ): Promise<ShotResult> => {
    const id = randomUUID();
    const deadline = Date.now() + timeoutMs + TRIP_MS;
    const payload = encodeRequest(
      id,
      req,
      {
        ...(opts.owner ? { owner: opts.owner } : {}),
        ...(opts.ifNoneMatch !== undefined ? { ifNoneMatch: opts.ifNoneMatch } : {}),
      },
      deps.secrets,
    );
    let wake: () => void = () => {};
    let woken = false;
    waiters.set(id, () => {
      woken = true;
      wake();
    });
    let collected = false;
    /** Since when the task has waited with no worker connected. */
    const alone: { since?: number } = {};
    try {
      const added = await pool.query(enqueueSql(names), [
        id,
        opts.owner?.accountId ?? '',
        payload,
        timeoutMs,
        names.workerApp,
      ]);
      if (added.rowCount === 0) throw new AppError('unavailable', NO_WORKER, { retryAfter: 5 });
      for (;;) {
        const left = deadline - Date.now();
        if (left <= 0) {
          throw new AppError('gateway_timeout', `The screenshot was not ready within ${timeoutMs / 1000} s`, {
            detail: `remote screenshot ${id}: no answer from a worker in time`,
          });
        }
        const why = await new Promise<'woken' | 'watch' | 'aborted'>((done) => {
          if (woken) return done('woken');
          const timer = setTimeout(() => done('watch'), Math.min(WATCH_MS, left));
          const onAbort = () => done('aborted');
          opts.signal?.addEventListener('abort', onAbort, { once: true });
          wake = () => {
            clearTimeout(timer);
            opts.signal?.removeEventListener('abort', onAbort);
            done('woken');
          };
          if (opts.signal?.aborted) onAbort();
        });
        woken = false;
        wake = () => {};
        if (why === 'aborted') throw clientClosed();
        const got = await collect(id);
        if (got) {
          collected = true;
          return await got();
        }
        if (why === 'watch') await watch(id, deadline, alone);
      }
    } finally {
      waiters.delete(id);
      if (!collected) {
        pool
          .query(abandonSql(names), [id])
          .catch((err) => log.debug({ err }, 'could not delete an abandoned task'));
      }
    }
  };

  /** The answer, once the worker wrote it: taken (the row deleted), then decoded by the caller. */
  const collect = async (id: string) => {
    const got = await pool.query<{ meta: ShotMeta; body: Buffer | null }>(collectSql(names), [id]);
    const row = got.rows[0];
    if (!row) return undefined;
    return async () =>
      decodeResult(row.meta, row.meta.ok && row.meta.spilled ? await spilledBody(id) : row.body);
  };

  const spilledBody = async (id: string) => {
    try {
      return await collectSpilled(deps.spillDir ?? '', id);
    } catch (err) {
      throw new AppError('unavailable', WORKER_LOST, {
        retryAfter: 1,
        detail: `task ${id}: its answer's file could not be read (is the job results directory shared by every node?): ${err instanceof Error ? err.message : String(err)}`,
      });
    }
  };

  /** Throws when the task cannot be answered any more: no worker left, or its worker died too often. */
  const watch = async (id: string, deadline: number, alone: { since?: number }) => {
    const { rows } = await pool.query<{
      state: string;
      worker_pid: number | null;
      attempts: number;
      alive: boolean;
      workers: boolean;
    }>(watchSql(names), [id, names.workerApp]);
    const row = rows[0];
    if (!row) throw new AppError('unavailable', WORKER_LOST, { retryAfter: 1, detail: `task ${id} is gone` });
    if (row.state === 'waiting' && !row.workers) {
      alone.since ??= Date.now();
      if (Date.now() - alone.since < NO_WORKER_GRACE_MS) return;
      throw new AppError('unavailable', NO_WORKER, {
        retryAfter: 5,
        detail: `task ${id}: every worker left`,
      });
    }
    delete alone.since;
    if (row.state !== 'running' || row.alive) return;
    // Its worker's session ended (the process died): run it again elsewhere if there is time.
    if (row.attempts < RUNS && deadline - Date.now() > 1000) {
      log.warn(
        { task: id, workerPid: row.worker_pid },
        'the worker taking a screenshot died: running it again',
      );
      await pool.query(requeueSql(names), [id, row.worker_pid]);
      return;
    }
    throw new AppError('unavailable', WORKER_LOST, {
      retryAfter: 1,
      detail: `task ${id}: worker session ${row.worker_pid} ended`,
    });
  };

  const status = (): ScreenshotStatus => ({
    installed: true,
    executablePath: 'remote (CARDSHOT_ROLE=api: the workers hold the browsers)',
    browser: {
      pid: undefined,
      generation: 0,
      jobs: 0,
      spares: 0,
      launches: 0,
      crashes: 0,
      busyPagesLowered: 0,
      up: false,
      launchError: undefined,
      sandbox: undefined,
      sandboxWarning: undefined,
      runsAs: undefined,
    },
    queue: { active: inFlight, waiting: 0, concurrency: Math.max(1, inFlight) },
  });

  return {
    viewports,
    resolve,
    async capture() {
      // Only a service's own layers call this (none on an API node): its screenshots are the workers'.
      throw new AppError('internal', 'Internal server error', {
        detail: 'screenshots.capture() on an API node (CARDSHOT_ROLE=api): use resolve()',
      });
    },
    status,
    warm: async () => {},
    close: async () => {},
  };
}
