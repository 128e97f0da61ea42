import type { ConfigOf, SettingsGroup } from '../config/setting.js';

/** The server secret, the plans, the first key and how long a verified key is trusted. */
export const authSettings = {
  secret: {
    kind: 'string',
    default: '',
    secret: true,
    description:
      'Server secret (32+ characters) that keys are hashed with (HMAC-SHA-256) and signing secrets derived from. Empty: generated once into CARDSHOT_DATA_DIR/secret. Every node of one deployment needs the same value.',
  },
  plansFile: {
    kind: 'string',
    default: '',
    description:
      'JSON file of plans (templates, screenshot viewports, rate limit) merged over the built-in free and pro plans; see docs/api.md.',
  },
  firstRunKey: {
    kind: 'bool',
    default: true,
    description:
      'On the first start with an empty database, create a default account on the pro plan, a development key and a dashboard invite, shown once: printed when stdout is a terminal, otherwise (nohup, systemd, docker logs keep stdout) written to CARDSHOT_DATA_DIR/first-run.txt (0600; an existing one is never replaced: a later first run, say on a new empty database, writes first-run-2.txt).',
  },
  keyCacheSeconds: {
    kind: 'int',
    default: 5,
    min: 0,
    max: 60,
    description:
      'How long a verified key is trusted without asking the database again. With REDIS_URL a revocation or plan change (dashboard or CLI, on any node) reaches every node at once; without Redis, or when a notice is lost, it takes effect within this time.',
  },
} as const satisfies SettingsGroup;

/** What the secret, the plans and the authenticator read. */
export type AuthConfig = ConfigOf<typeof authSettings>;
