/**
 * The webhooks area: endpoints and their secrets, the `JobEventSink` the jobs area publishes
 * to, and this node's delivery workers on the queue's "webhooks" queue.
 */
import type { Logger } from 'pino';
import { type Area, startArea } from '../area.js';
import type { ServerSecrets } from '../auth/secret.js';
import type { JobQueue } from '../jobs/queue/types.js';
import { type Clock, systemClock } from '../lib/clock.js';
import { createGuardedPoster } from '../net/post.js';
import type { NetConfig } from '../net/settings.js';
import { createUrlGuard, type UrlGuard } from '../net/url-guard.js';
import {
  ATTEMPTS_PER_ACCOUNT,
  createDeliveries,
  type DeliveryTask,
  deliveryQueuePolicy,
  WEBHOOK_QUEUE,
} from './deliveries.js';
import { createWebhookService, type WebhookService } from './service.js';
import type { WebhookConfig } from './settings.js';
import type { WebhookStore } from './store.js';

const HOUR_MS = 60 * 60_000;
/** How often, and past how long overdue, a pending delivery's lost task is queued again. */
const SWEEP_EVERY_MS = 5 * 60_000;
const SWEEP_GRACE_MS = 10 * 60_000;

/** Creates the service and starts this node's delivery workers. */
export function createWebhooksArea(
  config: WebhookConfig & NetConfig,
  deps: {
    store: WebhookStore;
    secrets: Pick<ServerSecrets, 'seal' | 'unseal'>;
    queue: JobQueue;
    log: Logger;
    clock?: Clock;
    /** The deliveries' URL guard (tests give one that admits their receivers); from the config otherwise. */
    guard?: UrlGuard;
    /** The delay after failed attempt n (tests shorten it); exponential with jitter by default. */
    backoff?: (attempt: number) => number;
    /**
     * False: this process only queues deliveries (a one-shot CLI run must not pick up a
     * delivery and then wait out a slow receiver's time-out before it can exit).
     */
    deliver?: boolean;
    /** Each attempt's outcome and duration (metrics). */
    onAttempt?: (outcome: string, seconds: number) => void;
  },
): Promise<Area<WebhookService>> {
  const log = deps.log.child({ area: 'webhooks' });
  return startArea(log, async (parts) => {
    const clock = deps.clock ?? systemClock;
    const guard = deps.guard ?? createUrlGuard({ allowPrivateHosts: config.allowPrivateHosts });
    const deliveries = createDeliveries({
      store: deps.store,
      secrets: deps.secrets,
      queue: deps.queue,
      poster: createGuardedPoster({ guard }),
      clock,
      log,
      config: {
        timeoutMs: config.webhookTimeoutMs,
        retryMs: config.webhookRetryHours * HOUR_MS,
        maxWaiting: config.webhookMaxWaiting,
      },
      ...(deps.backoff ? { backoff: deps.backoff } : {}),
      ...(deps.onAttempt ? { onAttempt: deps.onAttempt } : {}),
    });
    await deps.queue.createQueue(WEBHOOK_QUEUE, deliveryQueuePolicy(config.webhookTimeoutMs));
    if (deps.deliver !== false) {
      const worker = await deps.queue.work<DeliveryTask>(
        WEBHOOK_QUEUE,
        { concurrency: config.webhookConcurrency, groupLimit: () => ATTEMPTS_PER_ACCOUNT },
        (task, signal) => deliveries.run(task, signal),
      );
      // An attempt in flight gets its time-out to finish; one cut short is made again by the
      // queue (its task was not completed), under the same webhook-id.
      parts.add('webhook deliveries', () => worker.stop(config.webhookTimeoutMs));
    }

    // The delivery log is kept for its retention, then dropped (with messages given up on).
    const purge = () =>
      deps.store
        .purgeMessages(clock.now() - config.webhookRetentionDays * 24 * HOUR_MS)
        .then((n) => n > 0 && log.info({ removed: n }, 'purged old webhook deliveries'))
        .catch((err) => log.warn({ err }, 'could not purge old webhook deliveries'));
    const timer = setInterval(() => void purge(), HOUR_MS);
    timer.unref();
    parts.add('webhook log purge', async () => clearInterval(timer));

    if (deps.deliver !== false) {
      // Every node sweeps; two sweeping together add each attempt once (the task key).
      const sweep = () =>
        deliveries
          .sweep(SWEEP_GRACE_MS)
          .catch((err) => log.warn({ err }, 'could not sweep overdue webhook deliveries'));
      const sweeper = setInterval(() => void sweep(), SWEEP_EVERY_MS);
      sweeper.unref();
      parts.add('webhook sweeper', async () => clearInterval(sweeper));
    }

    return {
      service: createWebhookService({
        store: deps.store,
        secrets: deps.secrets,
        deliveries,
        guard,
        clock,
        log,
        maxEndpoints: config.webhookMaxEndpoints,
      }),
    };
  });
}
