import type { ConfigOf, SettingsGroup } from '../config/setting.js';

/** How long a dashboard session lasts. */
export const sessionSettings = {
  sessionIdleMinutes: {
    kind: 'int',
    default: 720,
    min: 5,
    max: 43_200,
    description: 'A dashboard session ends after this many minutes without a request.',
  },
  sessionMaxHours: {
    kind: 'int',
    default: 168,
    min: 1,
    max: 8_760,
    description: 'A dashboard session ends this many hours after sign-in, however active.',
  },
} as const satisfies SettingsGroup;

/** The dashboard sign-in limits. */
export const signInSettings = {
  signInLimitPerEmail: {
    kind: 'int',
    default: 10,
    min: 1,
    max: 10_000,
    description:
      'Dashboard sign-in attempts allowed per email address from one client address (an IPv6 /64) in CARDSHOT_SIGN_IN_WINDOW_SECONDS; ten times this from all addresses together, except from a browser that signed in as that email before (a device cookie, which has this budget of its own), so a stranger cannot lock the owner out of a browser they have used.',
  },
  signInLimitPerIp: {
    kind: 'int',
    default: 50,
    min: 1,
    max: 100_000,
    description:
      'Dashboard sign-in attempts allowed per client address (an IPv6 /64) in CARDSHOT_SIGN_IN_WINDOW_SECONDS.',
  },
  signInWindowSeconds: {
    kind: 'int',
    default: 900,
    min: 10,
    max: 86_400,
    description: 'The sliding window of the sign-in limits.',
  },
} as const satisfies SettingsGroup;

/** Who operates the service from the dashboard. */
export const adminSettings = {
  dashboardAdmins: {
    kind: 'list',
    default: [],
    description:
      "Comma-separated emails of the accounts whose dashboard users are the service's operators: they alone see the admin pages (the job queue's pg-boss dashboard, with PostgreSQL, under /dashboard/admin/queue). Empty by default: no one.",
  },
} as const satisfies SettingsGroup;

/** What the dashboard reads of its own settings. */
export type DashboardConfig = ConfigOf<typeof sessionSettings & typeof signInSettings & typeof adminSettings>;
