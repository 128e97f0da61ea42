import type { ConfigOf, SettingsGroup } from '../config/setting.js';

/** How a node runs jobs' items and how much of the data dir their results may take. */
export const jobSettings = {
  jobsWorkers: {
    kind: 'int',
    default: 4,
    min: 0,
    max: 256,
    description:
      "Job items this node renders at once (0: this node takes none, it only accepts jobs). Items yield to synchronous requests: one enters a render queue only when no request waits there. An item uploading to a storage target lends its slot to the next item (up to as many again uploading). An account's items across every node are capped by its plan's jobs.concurrency.",
  },
  jobsResultsDir: {
    kind: 'string',
    default: '',
    defaultDoc: 'CARDSHOT_DATA_DIR/jobs',
    description:
      "Directory of job results (one file per finished item, kept for the plan's retention). Every node that serves or runs jobs must see the same directory (a shared volume) when there are several.",
  },
  jobsMaxBytesPerAccount: {
    kind: 'int',
    default: 5 * 1024 * 1024 * 1024,
    min: 1024 * 1024,
    max: 1024 * 1024 * 1024 * 1024,
    description:
      'Bytes of job results one account may keep under CARDSHOT_JOBS_RESULTS_DIR (until retention deletes them); an item past it fails with a message saying so.',
  },
  jobsLeaseSeconds: {
    kind: 'int',
    default: 60,
    min: 2,
    max: 3600,
    description:
      'A running item whose node stopped answering for this long (it died) runs again on another node, or on this one after a restart. Renewed while the item runs, so a slow render is never taken twice.',
  },
  jobsSweepSeconds: {
    kind: 'int',
    default: 60,
    min: 1,
    max: 86_400,
    description:
      'How often a node deletes jobs past their plan retention (with their result files), clears the sealed credentials of items that have ended, and queues the items of jobs whose node died while queueing them.',
  },
  jobsPollLimit: {
    kind: 'int',
    default: 300,
    min: 1,
    max: 100_000,
    description:
      "Reads of an account's jobs (GET /jobs, /jobs/:id, /jobs/:id/items) it may make per 10 seconds, apart from its render budget; past it 429 with Retry-After. Downloads of results are not counted.",
  },
} as const satisfies SettingsGroup;

/** What the jobs area reads. */
export type JobsConfig = ConfigOf<typeof jobSettings>;
