import path from 'node:path';
import { describeDatabase } from '../../storage/open.js';
import type { StorageConfig } from '../../storage/settings.js';
import { createSqliteQueue } from './sqlite.js';
import { QUEUE_FILE } from './sqlite-schema.js';
import type { JobQueue } from './types.js';

export interface JobQueueDeps {
  /** Storage errors the workers ride out (a dropped connection): logged, never thrown. */
  onError?(err: unknown): void;
  /** Backstop poll for work added by another process (ms). */
  pollMs?: number;
  /** pg-boss only: how often lost tasks (a dead node's) are looked for, in seconds (default 5). */
  superviseIntervalSeconds?: number;
}

/**
 * Opens the queue beside the store: pg-boss in the store's PostgreSQL database with
 * DATABASE_URL, otherwise the SQLite queue in the data dir (`queue.sqlite`, its own file: see
 * sqlite-schema.ts). pg-boss on PGlite was measured and refused for the embedded default
 * (docs/architecture.md: +323 MB RSS against the 150 MB allowed).
 */
export async function createJobQueue(
  config: Pick<StorageConfig, 'databaseUrl' | 'dataDir' | 'databaseSchema'>,
  deps: JobQueueDeps = {},
): Promise<JobQueue> {
  const where = describeDatabase(config);
  if (where.kind === 'postgres') {
    // Loaded only here: the embedded default never loads pg-boss.
    const { createPgBossQueue } = await import('./pgboss.js');
    return createPgBossQueue({
      connectionString: where.location,
      schema: queueSchema(config.databaseSchema),
      ...deps,
    });
  }
  return createSqliteQueue({
    file: path.join(config.dataDir, QUEUE_FILE),
    ...(deps.pollMs !== undefined ? { pollMs: deps.pollMs } : {}),
    ...(deps.onError ? { onError: deps.onError } : {}),
  });
}

/**
 * pg-boss keeps its tables in a schema of its own (it migrates them itself), named after the
 * store's so two deployments in one database keep two queues: `pgboss` beside `public`,
 * `<schema>_pgboss` beside any other.
 */
export function queueSchema(storeSchema: string): string {
  return storeSchema === 'public' ? 'pgboss' : `${storeSchema}_pgboss`;
}
