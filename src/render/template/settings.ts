import os from 'node:os';
import type { ConfigOf, SettingsGroup } from '../../config/setting.js';

/** How many cards are drawn at once and how many may wait. */
export const templateSettings = {
  renderConcurrency: {
    kind: 'int',
    default: Math.max(1, os.availableParallelism()),
    defaultDoc: 'number of cores',
    min: 1,
    max: 64,
    description: 'Template renders run at once (default: the number of cores).',
  },
  renderQueueSize: {
    kind: 'int',
    default: 256,
    min: 0,
    max: 100_000,
    description: 'Template renders that may wait for a slot; past it requests get 503 with Retry-After.',
  },
} as const satisfies SettingsGroup;

/** What the template renderer's queue reads. */
export type TemplateConfig = ConfigOf<typeof templateSettings>;
