import type { ConfigOf, SettingsGroup } from '../config/setting.js';
import { createUrlGuard } from '../net/url-guard.js';

/** Delivery to storage: bounds per account, time-outs, retries and the private-host allowlist. */
export const deliverySettings = {
  storageMaxTargets: {
    kind: 'int',
    default: 10,
    min: 1,
    max: 1000,
    description:
      'Storage targets (S3-compatible buckets) one account may have; past it POST /storage answers 409.',
  },
  storageAllowPrivateHosts: {
    kind: 'list',
    default: [],
    description:
      'Comma-separated host:port pairs a storage target may point to although they are private (a MinIO on the LAN, for example minio.internal:9000 or 10.0.0.5:9000), besides CARDSHOT_ALLOW_PRIVATE_HOSTS. Empty by default: targets must be public S3 endpoints on port 443 or 80.',
    check: (items) => {
      try {
        createUrlGuard({ allowPrivateHosts: items });
        return undefined;
      } catch (err) {
        return (err as Error).message.replace('allowPrivateHosts entry', 'entry');
      }
    },
  },
  storageTimeoutMs: {
    kind: 'int',
    default: 30_000,
    min: 100,
    max: 600_000,
    description:
      'Time one upload attempt to a storage target may take (connect, send, answer); past it the attempt fails as a time-out and is retried.',
  },
  storageAttempts: {
    kind: 'int',
    default: 3,
    min: 1,
    max: 10,
    description:
      'Attempts at one upload when the storage answers 5xx or 429, drops the connection or times out (with back-off between them); errors the storage will repeat (NoSuchBucket, InvalidAccessKeyId, SignatureDoesNotMatch, AccessDenied) fail at once.',
  },
  storageUploadsPerAccount: {
    kind: 'int',
    default: 8,
    min: 1,
    max: 1000,
    description:
      'Uploads of one account in flight on one node; a synchronous render with store=s3 past it answers 429, a job item waits for its turn.',
  },
} as const satisfies SettingsGroup;

/** What the delivery area reads. */
export type DeliveryConfig = ConfigOf<typeof deliverySettings>;
