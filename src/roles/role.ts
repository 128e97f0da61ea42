/**
 * What each role starts (CARDSHOT_ROLE, docs/deploy.md). `all` is one machine's node: every
 * area. `api` starts every area too, but its screenshot area is the remote one (no Chromium:
 * remote-shots.ts) and it runs no job items and delivers no webhooks. `worker` starts only what
 * job items, webhook deliveries and the API nodes' screenshots need: no auth, no sessions, no
 * dashboard.
 */
import path from 'node:path';
import type { AreaName } from '../areas.js';
import { ConfigError } from '../config/load.js';
import { queueSchema } from '../jobs/queue/open.js';
import type { JobsConfig } from '../jobs/settings.js';
import { describeDatabase } from '../storage/open.js';
import type { StorageConfig } from '../storage/settings.js';
import type { Role, RoleConfig } from './settings.js';

/** A worker's areas (each brings what it needs; themes so its card items are themed). */
export const WORKER_AREAS = [
  'jobs',
  'webhooks',
  'themes',
  'screenshots',
  'render',
  // Warm jobs' site-page items read the pages and draw their cards here.
  'sites',
] as const satisfies AreaName[];

/** The areas `role` starts: undefined for every area. */
export function areasOf(role: Role): readonly AreaName[] | undefined {
  return role === 'worker' ? WORKER_AREAS : undefined;
}

/**
 * Refuses a role that cannot work with this configuration, in one line: api and worker nodes
 * meet only through PostgreSQL (the queue, the screenshots' table, their NOTIFYs).
 */
export function checkRole(config: RoleConfig & Pick<StorageConfig, 'databaseUrl' | 'dataDir'>): void {
  if (config.role === 'all') return;
  if (describeDatabase(config).kind !== 'postgres') {
    throw new ConfigError(
      `CARDSHOT_ROLE=${config.role} needs DATABASE_URL (PostgreSQL): api and worker nodes share its queue; the embedded SQLite store serves one node only (use CARDSHOT_ROLE=all)`,
    );
  }
}

/**
 * Where the API nodes and the workers meet: the database and the queue's schema, and the folder
 * large screenshot answers are handed over in (shot-spill.ts): inside the job results directory,
 * which every node of a database shares (jobs/results-volume.ts refuses a start otherwise).
 */
export function meetingPoint(
  config: Pick<StorageConfig, 'databaseUrl' | 'dataDir' | 'databaseSchema'> &
    Pick<JobsConfig, 'jobsResultsDir'>,
) {
  return {
    connectionString: describeDatabase(config).location,
    queueSchema: queueSchema(config.databaseSchema),
    spillDir: path.join(config.jobsResultsDir || path.join(config.dataDir, 'jobs'), '.remote-shots'),
  };
}
