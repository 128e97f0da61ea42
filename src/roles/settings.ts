import type { ConfigOf, SettingsGroup } from '../config/setting.js';

/** What this node does: everything (one machine), the API only, or the browsers and job items only. */
export const roleSettings = {
  role: {
    kind: 'enum',
    default: 'all',
    values: ['all', 'api', 'worker'],
    description:
      'What this node runs. all: the API, the dashboard, job items and the browsers (one machine). api: the API and dashboard, cards drawn here, screenshots sent to the workers through PostgreSQL and answered when done; no Chromium. worker: the browsers and job items and webhook deliveries, serving only /healthz, /readyz and /metrics. api and worker need DATABASE_URL (PostgreSQL); see docs/deploy.md.',
  },
  roleRemoteShotConcurrency: {
    kind: 'int',
    default: 0,
    min: 0,
    max: 256,
    defaultDoc: '2 × CARDSHOT_SCREENSHOT_CONCURRENCY',
    description:
      "worker: API nodes' screenshots this node takes from PostgreSQL at once (0: twice as many as its browser captures at once, so a screenshot waiting here for its account's share of the browser never holds another account's in PostgreSQL while a slot is free). They go ahead of job items in its screenshot queue.",
  },
} as const satisfies SettingsGroup;

/** What the roles read. */
export type RoleConfig = ConfigOf<typeof roleSettings>;
export type Role = RoleConfig['role'];
