import type { ConfigOf, SettingsGroup } from '../config/setting.js';

/** Invites and the keys one account may hold. */
export const accountSettings = {
  inviteHours: {
    kind: 'int',
    default: 72,
    min: 1,
    max: 720,
    description:
      'How long a one-time invite link (printed by `accounts create` and `accounts invite`) works.',
  },
  maxKeysPerAccount: {
    kind: 'int',
    default: 20,
    min: 1,
    max: 10_000,
    description:
      'The most active (not revoked, not expired) API keys one account may hold; creating one more is refused with 409 until one is revoked. Rotation is not counted.',
  },
} as const satisfies SettingsGroup;

/** What the account manager and credentials read. */
export type AccountsConfig = ConfigOf<typeof accountSettings>;
