/**
 * The outbox relay (issue 28 §3, durable). The store writes an event in the same transaction as
 * the state that causes it (an item's result, a job's end or cancel); this relay publishes it to
 * the webhooks area, and deletes the row only once `publish` resolved. A node that dies between
 * the two leaves the row; the relay of any node (this one when it starts again) publishes it.
 *
 * Several nodes drain one table: each leases a batch (the store skips rows another holds), so no
 * two publish an event at once. A publish made twice anyway (its node died after the publish,
 * before the delete; or a lease that ran out during a very slow publish) is harmless: the event
 * id is the row's, and the webhooks area derives each message's `webhook-id` from it and stores
 * a message id once, so the receiver gets one message, retried under one id if need be.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { JobEvent, JobEventSink } from './events.js';
import type { ResultLinks } from './links.js';
import type { JobStore, OutboxEvent } from './store/types.js';
import { itemView, jobView } from './view.js';

export interface RelayDeps {
  store: Pick<JobStore, 'claimEvents' | 'deleteEvent' | 'retryEvent'>;
  sink: Pick<JobEventSink, 'publish'>;
  /** The event's body from the job as stored now; undefined when there is none to send (deleted job). */
  build(e: OutboxEvent): Promise<JobEvent | undefined>;
  log: Logger;
  /** Backstop poll for rows other nodes left (a node's own writes wake its relay at once). */
  pollMs?: number;
  /** How long a leased row is this node's before another may take it. */
  leaseMs?: number;
  /**
   * Test hook (CARDSHOT_TEST_OUTBOX_HOLD), standing in for a node that dies at a precise step:
   * `before-publish` never publishes; `after-publish` publishes and never deletes.
   */
  hold?: 'before-publish' | 'after-publish';
  now?: () => number;
}

export interface EventRelay {
  /** Drains now (rows were just written); returns at once. */
  wake(): void;
  /** Stops polling and waits for the batch under way. */
  close(): Promise<void>;
}

/** Rows leased per claim. */
const BATCH = 50;
const DEFAULT_POLL_MS = 1000;
const DEFAULT_LEASE_MS = 5000;
/** How long close() keeps publishing what is left. */
const CLOSE_DRAIN_MS = 2000;
/** A failed publish is tried again after 1 s, 2 s, … up to a minute, never given up. */
const MAX_RETRY_MS = 60_000;

export function createEventRelay(deps: RelayDeps): EventRelay {
  const now = deps.now ?? Date.now;
  const node = randomUUID();
  const leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS;
  let draining: Promise<void> | undefined;
  let again = false;
  let closed = false;

  const publishOne = async (e: OutboxEvent) => {
    try {
      const event = await deps.build(e);
      if (event) await deps.sink.publish(e.accountId, event);
      if (deps.hold === 'after-publish') return;
      await deps.store.deleteEvent(e.id);
    } catch (err) {
      const delay = Math.min(MAX_RETRY_MS, 1000 * 2 ** e.failures);
      deps.log.warn({ err, event: e.id, type: e.type, job: e.jobId }, 'job event not published yet; retried');
      await deps.store.retryEvent(e.id, now() + delay).catch(() => {});
    }
  };

  const drainAll = async () => {
    do {
      again = false;
      for (;;) {
        if (closed) return;
        const t = now();
        const batch = await deps.store.claimEvents(node, t, t + leaseMs, BATCH);
        for (const e of batch) await publishOne(e);
        if (batch.length < BATCH) break;
      }
    } while (again && !closed);
  };

  const wake = () => {
    if (closed || deps.hold === 'before-publish') return;
    if (draining) {
      again = true;
      return;
    }
    draining = drainAll()
      .catch((err: unknown) => deps.log.warn({ err }, 'job events not relayed (the store is away?); polling'))
      .finally(() => {
        draining = undefined;
      });
  };

  const poll = setInterval(wake, deps.pollMs ?? DEFAULT_POLL_MS);
  poll.unref();
  // What a previous run (or another node that died) left.
  wake();

  return {
    wake,
    async close() {
      clearInterval(poll);
      // One last drain (the workers have stopped: their events are written), for up to 2 s;
      // what is left waits in the outbox for the next start or another node.
      wake();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([draining, new Promise<void>((r) => (timer = setTimeout(r, CLOSE_DRAIN_MS)))]);
      clearTimeout(timer);
      closed = true;
      await draining;
    },
  };
}

/**
 * An outbox row's event, from the job as stored when it is published: a job.* event carries the
 * job's view with its counts, a render.* event the item's (signed links, never bytes).
 */
export function eventBuilder(
  store: Pick<JobStore, 'getJob' | 'getItem' | 'counts'>,
  origin: () => string,
  links: ResultLinks,
): (e: OutboxEvent) => Promise<JobEvent | undefined> {
  return async (e) => {
    const job = await store.getJob(e.jobId);
    if (!job) return undefined; // deleted since (its retention, or its account)
    const base = {
      id: e.id,
      at: e.createdAt,
      type: e.type,
      ...(job.webhook ? { endpointId: job.webhook } : {}),
    };
    if (e.index === null) {
      return { ...base, data: jobView(job, await store.counts(job.id), origin(), links) };
    }
    const item = await store.getItem(job.id, e.index);
    if (!item) return undefined;
    return { ...base, data: { jobId: job.id, ...itemView(job, item, origin(), links) } };
  };
}
