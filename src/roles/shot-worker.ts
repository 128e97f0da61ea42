/**
 * A worker's side of the API nodes' screenshots (CARDSHOT_ROLE=worker): it claims waiting tasks
 * from PostgreSQL when woken by NOTIFY (a slow poll is only the backstop for a lost one), runs
 * each through its own screenshot service and writes the answer back, which wakes the API node.
 *
 * Ahead of job items: a claimed screenshot enters this node's screenshot queue as a request
 * does, and the jobs' priority gate (jobs/gate.ts) lets no item start while one waits or runs.
 * It claims at most twice what its browser captures at once (CARDSHOT_ROLE_REMOTE_SHOT_CONCURRENCY):
 * enough that a screenshot waiting here for its account's share of the browser does not hold
 * another account's in PostgreSQL, few enough that little waits here while another worker idles.
 */

import pg from 'pg';
import type { Logger } from 'pino';
import type { ServerSecrets } from '../auth/secret.js';
import type { ScreenshotService } from '../render/screenshot/types.js';
import { listen } from './pg-listen.js';
import { dropSpilled, SPILL_BYTES, spill, sweepSpilled } from './shot-spill.js';
import { decodeRequest, encodeError, encodeResult, type ShotPayload } from './shot-wire.js';
import { claimSql, createShotTableSql, finishSql, handBackSql, shotNames, sweepSql } from './shots-sql.js';

const BACKSTOP_MS = 2000;
const SWEEP_MS = 30_000;

export interface ShotWorker {
  /** Running screenshots now (for tests and metrics). */
  running(): number;
  /**
   * Takes no more; waits up to `graceMs` for the running ones, then hands back the rest (another
   * worker takes them; their API nodes wait on) and closes its connections.
   */
  stop(graceMs: number): Promise<void>;
}

export async function startShotWorker(opts: {
  connectionString: string;
  queueSchema: string;
  /** Screenshots taken at once. */
  concurrency: number;
  screenshots: Pick<ScreenshotService, 'resolve'>;
  secrets: Pick<ServerSecrets, 'unseal'>;
  /** Where large answers are handed over as files (shot-spill.ts); none: every answer in the row. */
  spillDir?: string;
  log: Logger;
}): Promise<ShotWorker> {
  const log = opts.log.child({ area: 'remote screenshots' });
  const names = shotNames(opts.queueSchema);
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: Math.min(10, opts.concurrency + 2),
    connectionTimeoutMillis: 5000,
    keepAlive: true,
    application_name: 'cardshot-worker-pool',
  });
  pool.on('error', () => {});
  pool.on('connect', (c) => c.on('error', () => {}));
  await pool.query(createShotTableSql(names, opts.queueSchema));

  const running = new Map<string, AbortController>();
  let stopping = false;
  let pumping = false;
  let again = false;

  const pump = async (): Promise<void> => {
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        const free = opts.concurrency - running.size;
        const pid = listener.pid();
        if (stopping || free <= 0 || pid === undefined) break;
        const { rows } = await pool.query<{
          id: string;
          payload: ShotPayload;
          remaining_ms: number;
        }>(claimSql(names), [pid, free]);
        for (const row of rows) run(row.id, row.payload, row.remaining_ms, pid);
        // A full batch: there may be more waiting.
        if (rows.length === free && rows.length > 0) again = true;
      } while (again && !stopping);
    } catch (err) {
      log.warn({ err }, 'could not claim screenshots (retrying)');
    } finally {
      pumping = false;
    }
  };

  const run = (id: string, payload: ShotPayload, remainingMs: number, pid: number) => {
    const abort = new AbortController();
    running.set(id, abort);
    // The API node gives up at its deadline: stop then too, freeing the slot.
    const timer = setTimeout(() => abort.abort(), Math.max(0, remainingMs));
    const work = async () => {
      let answer: ReturnType<typeof encodeResult>;
      try {
        const { req, owner, ifNoneMatch } = decodeRequest(id, payload, opts.secrets);
        const result = await opts.screenshots.resolve(req, {
          signal: abort.signal,
          ...(owner ? { owner } : {}),
          ...(ifNoneMatch !== undefined ? { ifNoneMatch } : {}),
        });
        answer = encodeResult(result);
      } catch (err) {
        answer = encodeError(err);
      }
      // Handed back while stopping: the task is another worker's now.
      if (!running.has(id)) return;
      let spilled = false;
      if (opts.spillDir && answer.body && answer.body.length >= SPILL_BYTES && answer.meta.ok) {
        try {
          await spill(opts.spillDir, id, answer.body);
          answer = { meta: { ...answer.meta, spilled: true }, body: null };
          spilled = true;
        } catch (err) {
          // A full or read-only folder: the answer goes through the row, slower but whole.
          log.warn(
            { err, task: id },
            'could not hand a screenshot over as a file; sending it through PostgreSQL',
          );
        }
      }
      const done = await pool.query(finishSql(names), [id, answer.meta, answer.body, pid]);
      // Nobody will collect it (the API node gave up, or the task was handed back meanwhile).
      if (spilled && done.rowCount === 0) await dropSpilled(opts.spillDir!, id);
    };
    work()
      .catch((err) => log.warn({ err, task: id }, 'could not write a screenshot answer'))
      .finally(() => {
        clearTimeout(timer);
        running.delete(id);
        void pump();
      });
  };

  const listener = await listen({
    connectionString: opts.connectionString,
    channels: [names.newChannel],
    applicationName: names.workerApp,
    onNotify: () => void pump(),
    onReconnect: () => void pump(),
    onError: (err) => log.warn({ err }, 'screenshot task listener lost its connection (reconnecting)'),
  });
  const backstop = setInterval(() => void pump(), BACKSTOP_MS);
  backstop.unref();
  const sweep = setInterval(() => {
    pool.query(sweepSql(names)).catch(() => {});
    if (opts.spillDir) void sweepSpilled(opts.spillDir);
  }, SWEEP_MS);
  sweep.unref();
  void pump();

  return {
    running: () => running.size,
    async stop(graceMs) {
      stopping = true;
      clearInterval(backstop);
      clearInterval(sweep);
      const until = Date.now() + graceMs;
      while (running.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
      if (running.size > 0) {
        const ids = [...running.keys()];
        const pid = listener.pid();
        for (const abort of running.values()) abort.abort();
        running.clear();
        if (pid !== undefined) {
          await pool
            .query(handBackSql(names), [ids, pid])
            .catch((err) => log.warn({ err }, 'could not hand back screenshots'));
        }
        log.info({ tasks: ids.length }, 'handed back screenshots still running to the other workers');
      }
      await listener.close();
      await pool.end().catch(() => {});
    },
  };
}
