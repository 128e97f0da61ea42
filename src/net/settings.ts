import type { ConfigOf, SettingsGroup } from '../config/setting.js';

/** The one exception list of the URL guard, for imageUrl fetches and screenshots alike. */
export const netSettings = {
  allowPrivateHosts: {
    kind: 'list',
    default: [],
    description:
      'Comma-separated host:port pairs the URL guard lets through although they are private (for example 127.0.0.1:8080 for a local fixture). Empty by default: never set it to reach internal services in production.',
  },
} as const satisfies SettingsGroup;

/** What the URL guard reads. */
export type NetConfig = ConfigOf<typeof netSettings>;
