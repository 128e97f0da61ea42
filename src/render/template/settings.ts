import os from 'node:os';
import { type ConfigOf, MiB, type SettingsGroup } from '../../config/setting.js';

/** How many cards are drawn at once and how many may wait; where template files are. */
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
  templatesDir: {
    kind: 'string',
    default: '',
    defaultDoc: 'CARDSHOT_DATA_DIR/templates',
    description:
      'Directory of your own template files (NAME.tsx or NAME.jsx, see docs/templates.md); a missing directory holds none. Reloaded on change unless NODE_ENV=production.',
  },
  fontsDir: {
    kind: 'string',
    default: '',
    defaultDoc: 'CARDSHOT_TEMPLATES_DIR/fonts',
    description:
      'Directory of fonts every account and template file can name (WOFF2, WOFF, TTF, OTF; the family from each file), checked like uploads at start; a missing directory holds none.',
  },
  fontEngineMaxBytes: {
    kind: 'int',
    default: 128 * MiB,
    min: 1 * MiB,
    max: 4096 * MiB,
    description:
      "Bytes of accounts' uploaded fonts the renderer keeps loaded; past it the renderer is rebuilt with the fonts in use (takumi cannot unload a font).",
  },
  skipBrokenTemplates: {
    kind: 'bool',
    default: false,
    description:
      'Leave a template file that fails to load out with a warning instead of stopping the start (also the --skip-broken-templates flag).',
  },
} as const satisfies SettingsGroup;

/** What the template renderer's queue reads. */
export type TemplateConfig = ConfigOf<typeof templateSettings>;
