/**
 * The delivery area (issue 31 §3): an account's storage targets (S3-compatible buckets, their
 * secrets sealed under the server secret) and the uploads of renders and job items to them,
 * every connection through the URL guard.
 */

import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { type Area, startArea } from '../area.js';
import type { ServerSecrets } from '../auth/secret.js';
import type { JobEventSink } from '../jobs/events.js';
import { type Clock, systemClock } from '../lib/clock.js';
import type { NetConfig } from '../net/settings.js';
import { createUrlGuard, type UrlGuard } from '../net/url-guard.js';
import type { Tables } from '../storage/tables.js';
import { createS3Clients } from './client.js';
import { createInflight } from './inflight.js';
import { createJobDelivery, type JobDelivery } from './jobs.js';
import { createDeliveryService, type DeliveryService } from './service.js';
import type { DeliveryConfig } from './settings.js';
import { createTargetStore } from './store.js';
import { createUploader } from './upload.js';

/** The area's service: the targets and uploads, and the jobs area's hook. */
export interface Delivery extends DeliveryService {
  /** The hook the jobs area calls (its events go to `events`, the webhooks area). */
  forJobs(events?: JobEventSink): JobDelivery;
}

/** Creates the service; its S3 clients (and their sockets) are closed with the area. */
export function createDeliveryArea(
  config: DeliveryConfig & NetConfig,
  deps: {
    store: { db: Kysely<Tables> };
    secrets: Pick<ServerSecrets, 'seal' | 'unseal'>;
    log: Logger;
    clock?: Clock;
    /** The uploads' URL guard (tests give one with a fake resolver); from the config otherwise. */
    guard?: UrlGuard;
    /** The delay after failed attempt n (tests shorten the back-off). */
    backoff?: (attempt: number) => number;
    /** At and past this size, a multipart upload (tests lower it). */
    multipartBytes?: number;
  },
): Promise<Area<Delivery>> {
  const log = deps.log.child({ area: 'delivery' });
  return startArea(log, (parts) => {
    const guard =
      deps.guard ??
      createUrlGuard({
        allowPrivateHosts: [...config.allowPrivateHosts, ...config.storageAllowPrivateHosts],
      });
    const clients = createS3Clients({
      guard,
      unseal: deps.secrets.unseal,
      timeoutMs: config.storageTimeoutMs,
    });
    parts.add('storage clients', async () => clients.close());
    const uploader = createUploader({
      clients,
      guard,
      timeoutMs: config.storageTimeoutMs,
      attempts: config.storageAttempts,
      onRetry: (failure, attempt, target) =>
        log.warn(
          { target: target.id, code: failure.code, attempt, detail: failure.detail },
          'upload attempt failed; retrying',
        ),
      ...(deps.backoff ? { backoff: deps.backoff } : {}),
      ...(deps.multipartBytes !== undefined ? { multipartBytes: deps.multipartBytes } : {}),
    });
    const store = createTargetStore(deps.store.db);
    const service = createDeliveryService({
      store,
      secrets: deps.secrets,
      clients,
      uploader,
      guard,
      inflight: createInflight(config.storageUploadsPerAccount),
      clock: deps.clock ?? systemClock,
      log,
      maxTargets: config.storageMaxTargets,
      timeoutMs: config.storageTimeoutMs,
    });
    return {
      service: {
        ...service,
        forJobs: (events) => createJobDelivery({ service, store, ...(events ? { events } : {}) }),
      },
    };
  });
}
