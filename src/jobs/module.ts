/**
 * The jobs area (issue 28 §1, §3): the job store over the service's database, this node's item
 * workers on the shared queue (pg-boss with PostgreSQL, the SQLite queue in the data dir
 * otherwise), result files under the data dir, signed result links, and the retention sweep.
 */
import path from 'node:path';
import type { Logger } from 'pino';
import { linkOrigin } from '../accounts/origin.js';
import { type Area, startArea } from '../area.js';
import type { Plans } from '../auth/plans.js';
import type { ServerSecrets } from '../auth/secret.js';
import type { JobDelivery } from '../delivery/jobs.js';
import type { HttpConfig } from '../http/settings.js';
import type { WorkQueue } from '../lib/work-queue.js';
import type { RenderCommand } from '../render/command.js';
import type { ScreenshotService } from '../render/screenshot/types.js';
import type { TemplateRegistry } from '../render/template/types.js';
import type { StorageConfig } from '../storage/settings.js';
import type { Store } from '../storage/store.js';
import { createItemCredentials } from './credentials.js';
import type { JobEventSink } from './events.js';
import { createPriorityGate, nodeLoad } from './gate.js';
import { createResultLinks, type ResultLinks } from './links.js';
import type { JobQueue } from './queue/types.js';
import { createEventRelay, eventBuilder } from './relay.js';
import { createItemRenderer, type SitePageRenderer } from './render.js';
import { createResultFiles, type ResultFiles } from './results.js';
import { checkSharedResults } from './results-volume.js';
import { createJobService, type JobService } from './service.js';
import type { JobsConfig } from './settings.js';
import { createJobStore } from './store/kysely-jobs.js';
import type { JobStore } from './store/types.js';
import { createItemHandler, ITEM_QUEUE, type ItemTask, itemPolicy } from './worker.js';

/** What the HTTP routes use of the jobs area. */
export interface Jobs {
  service: JobService;
  store: JobStore;
  files: ResultFiles;
  links: ResultLinks;
  /** An account's reads of its jobs per 10 s (CARDSHOT_JOBS_POLL_LIMIT: poll-budget.ts). */
  pollLimit: number;
}

export interface JobsDeps {
  store: Store;
  plans: Plans;
  secrets: ServerSecrets;
  /** The queue area's queue (closed by it, after this area). */
  queue: JobQueue;
  registry: TemplateRegistry;
  /** Its viewports (items are parsed with them) and its queue's load (items yield to requests). */
  screenshots: ScreenshotService;
  /** The card render queue's load (items yield to requests). */
  renderQueue: WorkQueue;
  /** The render command items go through, as `job` callers. */
  render: RenderCommand;
  /** The webhooks area's sink; absent: no events (and a job naming a webhook is refused). */
  events?: JobEventSink;
  /** Delivery to storage (issue 31 §3); absent: a job with "store" is refused. */
  delivery?: JobDelivery;
  /** Site pages (warm jobs' items), read and drawn by the sites area; absent: such items fail. */
  sitePages?: SitePageRenderer;
  log: Logger;
}

/** Opens the queue, starts this node's workers (CARDSHOT_JOBS_WORKERS) and the sweep. */
export function createJobsArea(
  config: JobsConfig & StorageConfig & Pick<HttpConfig, 'publicUrl' | 'host' | 'port'>,
  deps: JobsDeps,
): Promise<Area<Jobs>> {
  return startArea(deps.log, async (parts) => {
    const log = deps.log.child({ area: 'jobs' });
    const store = createJobStore(deps.store.db);
    const resultsDir = config.jobsResultsDir || path.join(config.dataDir, 'jobs');
    // Several nodes share the PostgreSQL database: they must share the results directory too.
    if (deps.store.kind === 'postgres') await checkSharedResults(resultsDir, deps.store);
    const files = createResultFiles(resultsDir);
    const links = createResultLinks(deps.secrets);
    const { queue } = deps;
    await queue.createQueue(ITEM_QUEUE, itemPolicy(config.jobsLeaseSeconds * 1000));
    const parsers = () => ({ registry: deps.registry, viewports: deps.screenshots.viewports });
    const credentials = createItemCredentials(deps.secrets);
    // Created before the service, which announces canceled jobs through it.
    let service: JobService | undefined;
    const hold = outboxHold();
    // Without the webhooks area the outbox is drained all the same (events go nowhere).
    const relay = createEventRelay({
      store,
      sink: deps.events ?? { publish: async () => {} },
      build: eventBuilder(store, () => linkOrigin(config), links),
      log,
      ...(hold === 'before-publish' || hold === 'after-publish' ? { hold } : {}),
    });
    parts.add('job event relay', () => relay.close());
    const handler = createItemHandler({
      store,
      queue,
      renderer: createItemRenderer(deps.render, deps.sitePages),
      files,
      gate: createPriorityGate(nodeLoad(deps.renderQueue, deps.screenshots)),
      parsers,
      credentials: async (item) => {
        const sealed =
          item.kind === 'screenshot' ? await store.sealedCredentials(item.jobId, item.index) : undefined;
        return sealed === undefined ? undefined : credentials.open(item.jobId, item.index, sealed);
      },
      getAccount: (id) => deps.store.getAccount(id),
      plans: deps.plans,
      noteLimit: (account, limit) => service?.noteLimit(account, limit),
      maxBytesPerAccount: config.jobsMaxBytesPerAccount,
      ...(deps.events ? { events: deps.events } : {}),
      ...(deps.delivery ? { delivery: deps.delivery } : {}),
      onEvents: relay.wake,
      log,
    });
    service = createJobService({
      store,
      queue,
      files,
      parsers,
      credentials,
      ...(deps.events ? { events: deps.events } : {}),
      ...(deps.delivery ? { delivery: deps.delivery } : {}),
      // The store wrote the job's event with its end or cancel: published by the relay.
      announce: async () => relay.wake(),
      log,
    });
    const jobs = service;
    if (config.jobsWorkers > 0) {
      const worker = await queue.work<ItemTask>(
        ITEM_QUEUE,
        { concurrency: config.jobsWorkers, groupLimit: (account) => jobs.groupLimit(account) },
        handler.handle,
      );
      parts.add('job workers', () => worker.stop());
    }
    const sweep = setInterval(() => {
      jobs.sweep().catch((err: unknown) => log.warn({ err }, 'job sweep failed'));
    }, config.jobsSweepSeconds * 1000);
    sweep.unref();
    parts.add('job sweep', async () => clearInterval(sweep));
    return { service: { service: jobs, store, files, links, pollLimit: config.jobsPollLimit } };
  });
}

/**
 * Test hook CARDSHOT_TEST_OUTBOX_HOLD: makes a node stand still at one step of an event's way
 * out, so a test can SIGKILL it there: `before-publish` (items' outcomes and their events are
 * stored, the events never published), `after-publish` (published, never deleted from the
 * outbox, so a restart publishes them again).
 */
function outboxHold(): string | undefined {
  return process.env.CARDSHOT_TEST_OUTBOX_HOLD || undefined;
}
