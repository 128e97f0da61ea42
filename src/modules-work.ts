/**
 * The areas of work that outlives a request: the queue, the webhooks (endpoints, the event sink,
 * delivery workers) and the jobs (item workers over the render command). Each area's module is
 * imported when its area starts, like the others (modules-wiring.ts).
 */
import type { Logger } from 'pino';
import type { Area } from './area.js';
import type { AreaName } from './areas.js';
import type { JobQueue } from './jobs/queue/types.js';
import type { StartContext, startCore, startRendering } from './modules-wiring.js';
import type { Config } from './settings.js';
import type { Sites } from './sites/module.js';

/**
 * The queue, then the webhooks (endpoints, the event sink, delivery workers) and the jobs over
 * the render command (item workers), which publish their events to the webhooks.
 */
export async function startWork(
  { config, log, opts, metrics, start, has }: StartContext,
  core: Awaited<ReturnType<typeof startCore>>,
  rendering: Awaited<ReturnType<typeof startRendering>>,
  sites?: Sites,
) {
  const clock = opts.clock ? { clock: opts.clock } : {};
  const queue = has('queue') ? await start('queue', openQueueArea(config, log)) : undefined;
  // The cluster's backlog for autoscaling (issue 31 §1): read from PostgreSQL at scrape time.
  if (queue?.kind === 'pg-boss' && config.metricsToken !== '') {
    await start('backlog metrics', backlogMetricsArea(config, metrics, log));
  }
  // An API node takes no job items and delivers no webhooks: the workers do (roles/role.ts).
  const api = config.role === 'api';
  const accounts = () => needed(core.accounts, 'accounts');
  const webhooks = has('webhooks')
    ? await start(
        'webhooks',
        (await import('./webhooks/module.js')).createWebhooksArea(config, {
          store: accounts().store,
          secrets: accounts().secrets,
          queue: needed(queue, 'queue'),
          log,
          ...clock,
          ...(opts.webhookGuard ? { guard: opts.webhookGuard } : {}),
          ...(opts.webhookBackoff ? { backoff: opts.webhookBackoff } : {}),
          ...(opts.webhookWorkers === false || api ? { deliver: false } : {}),
          onAttempt: (outcome, seconds) => metrics.observeWebhookAttempt(outcome, seconds),
        }),
      )
    : undefined;
  const delivery = has('delivery')
    ? await start(
        'delivery',
        (await import('./delivery/module.js')).createDeliveryArea(config, {
          store: accounts().store,
          secrets: accounts().secrets,
          log,
          ...clock,
          ...(opts.storageGuard ? { guard: opts.storageGuard } : {}),
          ...(opts.storageBackoff ? { backoff: opts.storageBackoff } : {}),
        }),
      )
    : undefined;
  const jobs = has('jobs')
    ? await start(
        'jobs',
        (await import('./jobs/module.js')).createJobsArea(api ? { ...config, jobsWorkers: 0 } : config, {
          store: accounts().store,
          plans: accounts().plans,
          secrets: accounts().secrets,
          queue: needed(queue, 'queue'),
          registry: needed(core.registry, 'template files'),
          screenshots: needed(rendering.screenshots, 'screenshots'),
          renderQueue: needed(rendering.renderQueue, 'templates'),
          render: needed(rendering.render, 'render'),
          ...(webhooks ? { events: webhooks } : {}),
          ...(delivery ? { delivery: delivery.forJobs(webhooks) } : {}),
          ...sitePagesOf(sites),
          log,
        }),
      )
    : undefined;
  return { queue, webhooks, delivery, jobs };
}

/** The queue as an area: closed after the areas that work on it (they start after it). */
async function openQueueArea(config: Config, log: Logger): Promise<Area<JobQueue>> {
  const { createJobQueue } = await import('./jobs/queue/open.js');
  const queue = await createJobQueue(config, {
    onError: (err) => log.warn({ err }, 'queue storage error (the workers carry on)'),
  });
  return { service: queue, close: () => queue.close() };
}

/** The backlog gauges on the app's registry, with their own connection (closed with the area). */
async function backlogMetricsArea(
  config: Config,
  metrics: StartContext['metrics'],
  log: Logger,
): Promise<Area<null>> {
  const { registerBacklogMetrics } = await import('./roles/backlog-metrics.js');
  const { meetingPoint } = await import('./roles/role.js');
  const backlog = registerBacklogMetrics({
    registry: metrics.registry,
    ...meetingPoint(config),
    storeSchema: config.databaseSchema,
    onError: (err) => log.warn({ err }, 'could not read the queue backlog for /metrics'),
  });
  return { service: null, close: () => backlog.close() };
}

/** An area's service that `resolveAreas` guarantees; a clear error if the wiring ever breaks that. */
function needed<S>(service: S | undefined, area: AreaName): S {
  if (service === undefined) throw new Error(`createModules: the ${area} area was needed but not started`);
  return service;
}

/** The jobs' site-page renderer, when the sites area draws site cards in this process. */
function sitePagesOf(sites: Sites | undefined) {
  return sites?.cards ? { sitePages: sites.cards.og } : {};
}
