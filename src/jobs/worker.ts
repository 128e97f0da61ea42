/**
 * Runs one item (a queue task `{ job, index }`). Every step is safe to repeat: the claim takes
 * only a live item, the result is stored only over a live item (a second run's file is then
 * removed), and the job is ended by one conditional update, so a task that runs twice (its node
 * died after the render) neither doubles nor loses a result, and exactly one run writes its
 * events (to the outbox, in the result's transaction: see relay.ts).
 */
import type { Logger } from 'pino';
import type { Plans } from '../auth/plans.js';
import type { JobDelivery } from '../delivery/jobs.js';
import { isAppError } from '../errors.js';
import type { ShotCredentials } from '../render/screenshot/credentials.js';
import type { Account } from '../storage/store.js';
import type { JobEventSink } from './events.js';
import type { PriorityGate } from './gate.js';
import { type ItemParsers, parseStoredItem } from './items.js';
import type { JobQueue, QueuePolicy, Task, TaskControl } from './queue/types.js';
import type { ItemRenderer } from './render.js';
import type { ResultFiles } from './results.js';
import type { ItemOutcome, ItemRecord, JobRecord, JobStore } from './store/types.js';

/** The queue every job item goes through. */
export const ITEM_QUEUE = 'job-items';

/** A task's data: which item (never its request or its bytes). */
export interface ItemTask {
  job: string;
  index: number;
}

/** Two retries of a transient failure (a full render queue, a restarting browser), then the item fails. */
export const ITEM_RETRY_LIMIT = 2;

/** The item queue's policy; `leaseMs` is how soon a dead node's item runs elsewhere. */
export function itemPolicy(leaseMs: number): QueuePolicy {
  return { retryLimit: ITEM_RETRY_LIMIT, retryDelayMs: 1000, retryBackoff: true, expireMs: leaseMs };
}

export interface WorkerDeps {
  store: JobStore;
  queue: JobQueue;
  renderer: ItemRenderer;
  files: ResultFiles;
  gate: PriorityGate;
  parsers: () => ItemParsers;
  /** A screenshot item's credentials, opened from their sealed column (jobs/credentials.ts). */
  credentials?: (item: ItemRecord) => Promise<ShotCredentials | undefined>;
  getAccount(id: string): Promise<Account | undefined>;
  plans: Plans;
  /** Remembers an account's jobs.concurrency for the queue's group limit. */
  noteLimit(accountId: string, limit: number): void;
  maxBytesPerAccount: number;
  events?: JobEventSink;
  /** Delivery to storage of the items of jobs that asked for it (issue 31 §3). */
  delivery?: Pick<JobDelivery, 'deliverItem'>;
  /** Rows were written to the outbox: wakes the relay. */
  onEvents?: () => void;
  log: Logger;
  now?: () => number;
}

/** The queue handler that runs job items. */
export function createItemHandler(deps: WorkerDeps) {
  const now = deps.now ?? Date.now;
  const { store, log } = deps;

  /**
   * Stores the outcome (once) and, in the same transaction, the events it causes (the item's
   * when someone subscribes to it, the job's when it was the last): the relay publishes them.
   */
  const settle = async (job: JobRecord, index: number, outcome: ItemOutcome) => {
    const type = outcome.status === 'succeeded' ? 'render.succeeded' : 'render.failed';
    const itemEvent = deps.events?.wants
      ? await deps.events.wants(job.accountId, type, job.webhook ?? undefined)
      : deps.events !== undefined;
    const { stored, ended } = await store.settleItem(job.id, index, outcome, now(), { itemEvent });
    if (stored && (itemEvent || ended)) deps.onEvents?.();
    return stored;
  };

  /** Puts an item off until the account's budget has room again: a new task, this one completes. */
  const defer = async (task: Task<ItemTask>, at: number, claimed: boolean) => {
    const { job, index } = task.data;
    if (claimed) await store.releaseItem(job, index);
    await deps.queue.add(ITEM_QUEUE, [
      { group: task.group, data: task.data, key: `${job}:${index}:${at}`, startAfter: at },
    ]);
  };
  /**
   * Accounts whose budget a render found spent, until when. Their other items are put off
   * without asking the limiter again: an account's thousands of items would otherwise each be
   * refused (and re-queued) once per window while the budget is spent.
   */
  const spent = new Map<string, number>();

  // A job's items run back to back: its record (what an item reads of it never changes) and its
  // account's plan are read once every few seconds, not once per item. A plan change applies
  // within CACHE_MS; a cancel is seen by the claim, which reads the item itself.
  const jobs = recentlyRead((id: string) => store.getJob(id));
  const plans = recentlyRead(async (accountId: string) => {
    const account = await deps.getAccount(accountId);
    return account && deps.plans.get(account.plan);
  });
  const started = new Set<string>();
  /** queued → running, once per job and process. */
  const markStarted = async (job: JobRecord) => {
    if (job.status !== 'queued' || started.has(job.id)) return;
    if (started.size > 10_000) started.clear();
    started.add(job.id);
    await store.startJob(job.id, now());
  };

  async function handle(task: Task<ItemTask>, signal: AbortSignal, control?: TaskControl): Promise<void> {
    const { job: jobId, index } = task.data;
    const job = await jobs(jobId);
    if (!job) return; // deleted (retention, or its account)
    const plan = await plans(job.accountId);
    if (!plan) {
      await settle(job, index, { status: 'failed', error: 'the account or its plan no longer exists' });
      return;
    }
    deps.noteLimit(job.accountId, plan.jobs.concurrency);
    const until = spent.get(job.accountId);
    if (until !== undefined) {
      if (until > now()) return defer(task, until, false);
      spent.delete(job.accountId);
    }
    const item = await store.claimItem(jobId, index, now());
    if (!item) return; // ended already, or canceled
    await markStarted(job);

    let parsed: ReturnType<typeof parseStoredItem>;
    try {
      parsed = parseStoredItem(item.kind, item.request, deps.parsers(), await deps.credentials?.(item));
    } catch (err) {
      // A template removed since the submission: the item fails as the route would refuse it.
      if (!isAppError(err)) throw err;
      await settle(job, index, { status: 'failed', error: err.message });
      return;
    }
    const release = await deps.gate.turn(item.kind, signal, job.accountId);
    let rendered: Awaited<ReturnType<ItemRenderer['render']>>;
    try {
      rendered = await deps.renderer.render(parsed, { accountId: job.accountId, plan }, signal);
    } catch (err) {
      release();
      return failed(task, job, err);
    }
    release();
    await keep(job, item, rendered, control);
  }

  /** A render that threw: put off (the budget), retried (transient) or the item's failure. */
  async function failed(task: Task<ItemTask>, job: JobRecord, err: unknown): Promise<void> {
    if (isAppError(err, 'rate_limited')) {
      const at = now() + Math.ceil((err.retryAfter ?? 1) * 1000);
      if (spent.size > 10_000) spent.clear();
      spent.set(job.accountId, Math.max(spent.get(job.accountId) ?? 0, at));
      return defer(task, at, true);
    }
    const transient = !isAppError(err) || isAppError(err, 'unavailable', 'internal', 'client_closed');
    // Retried by the queue while it may; the last attempt's failure is the item's.
    if (transient && task.attempt <= ITEM_RETRY_LIMIT) throw err;
    await settle(job, task.data.index, { status: 'failed', error: failureMessage(err) });
  }

  /** Writes the file within the account's bound and stores the result; a full disk fails the item. */
  async function keep(
    job: JobRecord,
    item: ItemRecord,
    rendered: Awaited<ReturnType<ItemRenderer['render']>>,
    control?: TaskControl,
  ): Promise<void> {
    // Reserved before the write, so two items of one account on this node cannot both pass
    // the bound with the last bytes (across nodes it is counted from the store every 3 s).
    if (!(await bytes.take(job.accountId, rendered.body.length, deps.maxBytesPerAccount))) {
      const limit = deps.maxBytesPerAccount;
      const size =
        limit >= 1024 ** 3 ? `${(limit / 1024 ** 3).toFixed(1)} GiB` : `${Math.round(limit / 1024 ** 2)} MiB`;
      const error = `could not store the result: your account's job results are at their limit (${size}) until older jobs reach the end of their retention`;
      await settle(job, item.index, { status: 'failed', error });
      return;
    }
    let file: string;
    try {
      file = await deps.files.write(
        {
          accountId: job.accountId,
          jobId: job.id,
          index: item.index,
          etag: rendered.etag,
          contentType: rendered.contentType,
        },
        rendered.body,
      );
    } catch (err) {
      bytes.give(job.accountId, rendered.body.length);
      if (!isAppError(err)) throw err;
      log.error({ err, job: job.id, index: item.index }, 'job result not written');
      await settle(job, item.index, { status: 'failed', error: err.message });
      return;
    }
    // Issue 31 §3: the one delivery hook. After the file is kept, before the result is recorded,
    // so an upload that fails after its retries fails the item with the storage's error. While
    // it uploads the item stands aside: its worker slot renders the next item (an upload waits
    // on the network, not on this node's cores), and the task completes only once the object is
    // stored and the result recorded, so a node that dies mid-upload leaves the item to run again.
    const delivered = await deps.delivery?.deliverItem(job, item, rendered, {
      onUpload: () => control?.standAside(),
    });
    if (delivered?.error) {
      bytes.give(job.accountId, rendered.body.length);
      await deps.files.remove(file);
      await settle(job, item.index, { status: 'failed', error: delivered.error });
      return;
    }
    const { body: _body, ...facts } = rendered;
    const kept = await settle(job, item.index, {
      status: 'succeeded',
      result: { file, bytes: rendered.body.length, ...facts },
    });
    if (!kept) bytes.give(job.accountId, rendered.body.length);
    if (!kept) {
      // Another run stored this item first: its file stays, this one goes (unless it is the same file).
      const first = await deps.store.getItem(job.id, item.index);
      if (first?.result?.file !== file) await deps.files.remove(file);
    }
  }

  /** An account's stored bytes: read every CACHE_MS, with this node's reservations in between. */
  const bytes = (() => {
    const known = new Map<string, { bytes: number; at: number }>();
    return {
      /** Reserves `n` bytes when they fit under `max`; false (nothing reserved) when not. */
      async take(accountId: string, n: number, max: number): Promise<boolean> {
        let k = known.get(accountId);
        if (!k || now() - k.at >= CACHE_MS) {
          const fresh = await store.bytesOf(accountId);
          if (known.size > 10_000) known.clear();
          k = { bytes: fresh, at: now() };
          known.set(accountId, k);
        }
        // From here on synchronous: concurrent items of this node see each other's reservation.
        if (k.bytes + n > max) return false;
        k.bytes += n;
        return true;
      },
      give(accountId: string, n: number) {
        const k = known.get(accountId);
        if (k) k.bytes = Math.max(0, k.bytes - n);
      },
    };
  })();

  /** `read(key)`, remembered for CACHE_MS (a bounded map: cleared past 10,000 keys). */
  function recentlyRead<T>(read: (key: string) => Promise<T>): (key: string) => Promise<T> {
    const seen = new Map<string, { value: T; at: number }>();
    return async (key) => {
      const hit = seen.get(key);
      if (hit && now() - hit.at < CACHE_MS) return hit.value;
      const value = await read(key);
      if (seen.size > 10_000) seen.clear();
      seen.set(key, { value, at: now() });
      return value;
    };
  }

  return { handle };
}

/** How long a job record, a plan and an account's byte count are reused. */
const CACHE_MS = 3000;

/** An item's error in the synchronous route's words; never an internal detail. */
function failureMessage(err: unknown): string {
  if (isAppError(err) && err.code !== 'internal') return err.message;
  return 'internal error while rendering this item';
}
