import type { JobQueue } from './types.js';

export interface PgBossQueueOptions {
  connectionString: string;
  schema: string;
  onError?(err: unknown): void;
  pollMs?: number;
}

/** pg-boss on PostgreSQL: under way on the h-queue branch. */
export async function createPgBossQueue(_opts: PgBossQueueOptions): Promise<JobQueue> {
  throw new Error('the pg-boss queue is not built yet: leave DATABASE_URL empty for the SQLite queue');
}
