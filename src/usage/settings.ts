import type { ConfigOf, SettingsGroup } from '../config/setting.js';

/** How often usage counters are written. */
export const usageSettings = {
  usageFlushSeconds: {
    kind: 'int',
    default: 5,
    min: 1,
    max: 300,
    description: 'Usage counters are written to the database in one batch this often (off the request path).',
  },
} as const satisfies SettingsGroup;

/** What the usage recorder reads. */
export type UsageConfig = ConfigOf<typeof usageSettings>;
