import { ConfigError } from '../config/load.js';

/** What a plan allows of jobs (POST /jobs): their size, their share of the workers, how long they are kept. */
export interface JobsAllowance {
  /** Items one job may hold (at most MAX_JOB_ITEMS). */
  maxItems: number;
  /** The account's items running at once across every node. */
  concurrency: number;
  /** The account's items waiting at once, over all its jobs; a job that would pass it gets 429. */
  maxWaiting: number;
  /** Days a job, its items and its result files are kept after it was submitted. */
  retentionDays: number;
}

/** The most items any job may hold, whatever the plan (issue 28 §1). */
export const MAX_JOB_ITEMS = 10_000;
const MAX_CONCURRENCY = 256;
const MAX_WAITING = 1_000_000;
const MAX_RETENTION_DAYS = 365;

/** The built-in plans' allowances: free runs one item at a time and keeps results a day. */
export const DEFAULT_JOBS: Readonly<Record<'free' | 'pro', JobsAllowance>> = {
  free: { maxItems: 100, concurrency: 1, maxWaiting: 1_000, retentionDays: 1 },
  pro: { maxItems: MAX_JOB_ITEMS, concurrency: 8, maxWaiting: 50_000, retentionDays: 7 },
};

/**
 * A plans file's `jobs` (`{ maxItems, concurrency, maxWaiting, retentionDays }`), each field
 * optional: a missing one is `from`'s (the built-in plan of the same name, or pro's), so a plans
 * file written before jobs existed keeps working.
 */
export function parseJobsAllowance(raw: unknown, at: string, from: JobsAllowance): JobsAllowance {
  if (raw === undefined) return from;
  const shape = `jobs must be { "maxItems": 1…${MAX_JOB_ITEMS}, "concurrency": 1…${MAX_CONCURRENCY}, "maxWaiting": 1…${MAX_WAITING}, "retentionDays": 1…${MAX_RETENTION_DAYS} }`;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigError(`${at}: ${shape}`);
  const r = raw as Record<string, unknown>;
  const unknown = Object.keys(r).find((k) => !(k in from));
  if (unknown !== undefined) {
    throw new ConfigError(
      `${at}: jobs has an unknown field "${unknown.slice(0, 40)}" (allowed: maxItems, concurrency, maxWaiting, retentionDays)`,
    );
  }
  const read = (name: keyof JobsAllowance, max: number): number => {
    const v = r[name] ?? from[name];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) {
      throw new ConfigError(`${at}: jobs.${name} must be an integer 1…${max}`);
    }
    return v;
  };
  return {
    maxItems: read('maxItems', MAX_JOB_ITEMS),
    concurrency: read('concurrency', MAX_CONCURRENCY),
    maxWaiting: read('maxWaiting', MAX_WAITING),
    retentionDays: read('retentionDays', MAX_RETENTION_DAYS),
  };
}
