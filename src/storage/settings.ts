import type { ConfigOf, SettingsGroup } from '../config/setting.js';

/** Where state is kept: the data dir and the database. */
export const storageSettings = {
  dataDir: {
    kind: 'string',
    default: './data',
    description:
      'Directory for the state Cardshot keeps: the SQLite database, the generated server secret and the PNG disk cache.',
  },
  databaseUrl: {
    kind: 'string',
    default: '',
    env: 'DATABASE_URL',
    secret: true,
    description:
      'Where accounts, keys and usage live. Empty: a SQLite file, CARDSHOT_DATA_DIR/cardshot.sqlite. postgres://user:pass@host:5432/db: PostgreSQL (same tables, migrated at start).',
  },
  databaseSchema: {
    kind: 'string',
    default: 'public',
    description: 'PostgreSQL schema that holds the tables (created when missing). Ignored with SQLite.',
  },
  databaseTimeoutMs: {
    kind: 'int',
    default: 3000,
    min: 100,
    max: 60_000,
    description:
      'Longest a request waits for the database to check a key (a database that hangs rather than refuses). Past it, keys verified in the last 30 s are still admitted and others get 503.',
  },
} as const satisfies SettingsGroup;

/** What opening the store reads. */
export type StorageConfig = ConfigOf<typeof storageSettings>;
