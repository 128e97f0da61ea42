import type { ConfigOf, SettingsGroup } from '../config/setting.js';

/** Webhook endpoints and deliveries: bounds per account, time-outs and the retry window. */
export const webhookSettings = {
  webhookMaxEndpoints: {
    kind: 'int',
    default: 10,
    min: 1,
    max: 1000,
    description: 'Webhook endpoints one account may have; past it POST /webhooks answers 409.',
  },
  webhookMaxWaiting: {
    kind: 'int',
    default: 1000,
    min: 1,
    max: 1_000_000,
    description:
      'Webhook deliveries of one account waiting for their first or next attempt; past it a test answers 429 and a job event is logged as failed instead of being queued.',
  },
  webhookTimeoutMs: {
    kind: 'int',
    default: 15_000,
    min: 100,
    max: 60_000,
    description:
      'Time a webhook receiver has to answer one delivery attempt (connect, headers and the first 4 KB of the answer); past it the attempt fails and is retried.',
  },
  webhookRetryHours: {
    kind: 'int',
    default: 24,
    min: 1,
    max: 72,
    description:
      'How long a webhook delivery is retried (exponential back-off with jitter, or the Retry-After the receiver asks for) before it is given up.',
  },
  webhookConcurrency: {
    kind: 'int',
    default: 16,
    min: 1,
    max: 1000,
    description: 'Webhook delivery attempts one node makes at once (at most 2 of them for one account).',
  },
  webhookRetentionDays: {
    kind: 'int',
    default: 7,
    min: 1,
    max: 365,
    description: 'Days the delivery log (every attempt, the first 1 KB of each answer) is kept.',
  },
} as const satisfies SettingsGroup;

/** What the webhooks area reads. */
export type WebhookConfig = ConfigOf<typeof webhookSettings>;
