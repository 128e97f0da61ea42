/**
 * The parts of a node that depend on its role, for main.ts: the HTTP app it serves and, on a
 * worker, the taking of the API nodes' screenshots (stopped before the modules close).
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createApp } from '../app.js';
import type { ModuleSet } from '../modules.js';
import type { Config } from '../settings.js';
import { meetingPoint } from './role.js';
import { startShotWorker } from './shot-worker.js';
import { createWorkerApp } from './worker-app.js';

/** The HTTP app of this node: the whole API, or a worker's probes and metrics. */
export function createNodeApp(config: Config, log: Logger, modules: ModuleSet): FastifyInstance {
  return config.role === 'worker'
    ? createWorkerApp({ config, log, ...modules })
    : createApp({ config, log, ...modules });
}

/** What a role runs beside its modules; `stop` never rejects. */
export interface RoleWork {
  stop(graceMs: number): Promise<void>;
}

/** On a worker, starts taking the API nodes' screenshots; nothing on other roles. */
export async function startRoleWork(
  config: Config,
  log: Logger,
  modules: ModuleSet,
): Promise<RoleWork | undefined> {
  if (config.role !== 'worker') return undefined;
  return startShotWorker({
    ...meetingPoint(config),
    // Twice the browser's: a screenshot waiting here for its account's share of the browser must
    // not keep another account's waiting in PostgreSQL while a slot is free.
    concurrency: config.roleRemoteShotConcurrency || 2 * config.screenshotConcurrency,
    screenshots: modules.screenshots,
    secrets: modules.accounts.secrets,
    log,
  });
}
