import type { Logger } from 'pino';
import { randomBase62 } from '../auth/keys.js';
import type { ServerSecrets } from '../auth/secret.js';
import { AppError } from '../errors.js';
import type { JobQueue, QueuePolicy, Task } from '../jobs/queue/types.js';
import type { Clock } from '../lib/clock.js';
import type { GuardedPoster } from '../net/post.js';
import { isUniqueViolation } from '../storage/kysely-store.js';
import { attemptDelivery } from './attempt.js';
import { backoffMs } from './schedule.js';
import type { EndpointRecord, MessageRecord, WebhookStore } from './store.js';

/** The queue deliveries run on: one task per attempt, grouped by account. */
export const WEBHOOK_QUEUE = 'webhooks';

/** A queue task: one attempt of one message (`attempt` tells a stale duplicate apart). */
export interface DeliveryTask {
  accountId: string;
  messageId: string;
  attempt: number;
}

/** Attempts of one account running at once on a node: a hanging receiver holds its own account's slots only. */
export const ATTEMPTS_PER_ACCOUNT = 2;

export interface DeliveriesDeps {
  store: WebhookStore;
  secrets: Pick<ServerSecrets, 'seal' | 'unseal'>;
  queue: Pick<JobQueue, 'add'>;
  poster: GuardedPoster;
  clock: Clock;
  log: Logger;
  config: { timeoutMs: number; retryMs: number; maxWaiting: number };
  /** The delay after failed attempt n (tests shorten it); backoffMs by default. */
  backoff?: (attempt: number) => number;
  /** Each attempt's outcome and duration (metrics). */
  onAttempt?: (outcome: string, seconds: number) => void;
}

/** The queue policy: the handler schedules its own retries; the queue's only cover a crash or a database error. */
export function deliveryQueuePolicy(timeoutMs: number): QueuePolicy {
  return { retryLimit: 5, retryDelayMs: 5000, retryBackoff: true, expireMs: timeoutMs + 60_000 };
}

/** The context a secret is sealed under: a sealed value moved to another endpoint's row does not open. */
export const sealContext = (endpointId: string) => `webhook-secret:${endpointId}`;

/** Sending messages and making their attempts (the queue handler). */
export interface Deliveries {
  /**
   * Records a message for `endpoint` and queues its first attempt. Past the account's bound on
   * waiting deliveries: 429 when `onFull` is 'refuse', else the message is logged as not sent.
   * With `id`, idempotent: a message of that id already stored is returned as it is (nothing
   * new is queued: its attempts are under way, or the sweeper queues them).
   */
  send(
    endpoint: EndpointRecord,
    type: string,
    body: string,
    onFull: 'refuse' | 'record',
    id?: string,
  ): Promise<MessageRecord>;
  /** Starts a new 24-hour series of attempts of a message that is no longer pending. */
  redeliver(message: MessageRecord): Promise<MessageRecord>;
  /** Makes the attempt a task stands for and schedules the next one if it failed. */
  run(task: Task<DeliveryTask>, signal: AbortSignal): Promise<void>;
  /**
   * Queues again the next attempt of pending messages overdue by more than `graceMs` (their
   * task was lost: a failed add, a dead letter), and ends those past their retry window.
   * Adding an attempt whose task still exists adds nothing (same key). How many it touched.
   */
  sweep(graceMs: number): Promise<number>;
}

export function createDeliveries(deps: DeliveriesDeps): Deliveries {
  const { store, clock, log, config } = deps;
  const backoff = deps.backoff ?? ((attempt: number) => backoffMs(attempt));

  // The queue runs on the wall clock (its tasks wait on timers), whatever clock dates the log.
  const enqueue = async (m: MessageRecord, attempt: number, delayMs: number) => {
    await deps.queue.add<DeliveryTask>(WEBHOOK_QUEUE, [
      {
        group: m.accountId,
        data: { accountId: m.accountId, messageId: m.id, attempt },
        // A second add of the same attempt (a retried handler) adds nothing.
        key: `${m.id}:${attempt}`,
        startAfter: Date.now() + delayMs,
      },
    ]);
  };

  const signingSecrets = (e: EndpointRecord, now: number): string[] => {
    const context = sealContext(e.id);
    const secrets = [deps.secrets.unseal(e.secretSealed, context)];
    if (e.previousSealed !== null && e.previousUntil !== null && e.previousUntil > now) {
      secrets.push(deps.secrets.unseal(e.previousSealed, context));
    }
    return secrets;
  };

  /** Stores `m`; false when a message with its id exists (a second publish of one event). */
  const inserted = async (m: MessageRecord) => {
    try {
      await store.insertMessage(m);
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  };

  const finish = (m: MessageRecord, status: 'succeeded' | 'failed', attempts: number) =>
    store.updateMessage(m.id, { status, attempts, nextAttemptAt: null });

  return {
    async send(endpoint, type, body, onFull, id) {
      if (id !== undefined) {
        const known = await store.getMessage(endpoint.accountId, id);
        if (known) return known;
      }
      const now = clock.now();
      const message: MessageRecord = {
        id: id ?? `msg_${randomBase62(20)}`,
        endpointId: endpoint.id,
        accountId: endpoint.accountId,
        type,
        body,
        createdAt: now,
        status: 'pending',
        attempts: 0,
        seriesStartedAt: now,
        nextAttemptAt: now,
      };
      const waiting = await store.countPendingMessages(endpoint.accountId);
      if (waiting >= config.maxWaiting) {
        if (onFull === 'refuse') {
          throw new AppError(
            'rate_limited',
            `This account has ${waiting} webhook deliveries waiting, the most it may have; retry once they are delivered`,
            { retryAfter: 60 },
          );
        }
        log.warn(
          { account: endpoint.accountId, endpoint: endpoint.id, type, waiting },
          'webhook not sent: too many waiting',
        );
        const failed = { ...message, status: 'failed' as const, nextAttemptAt: null };
        if (!(await inserted(failed)))
          return (await store.getMessage(endpoint.accountId, message.id)) ?? failed;
        await store.insertAttempt({
          id: `atmpt_${randomBase62(20)}`,
          messageId: message.id,
          endpointId: endpoint.id,
          accountId: endpoint.accountId,
          attempt: 0,
          at: now,
          durationMs: 0,
          status: null,
          response: '',
          error: `Not sent: ${waiting} deliveries of this account were already waiting, the most it may have`,
        });
        return failed;
      }
      // Stored by a concurrent publish of the same event meanwhile: that one queues it.
      if (!(await inserted(message)))
        return (await store.getMessage(endpoint.accountId, message.id)) ?? message;
      // A queue that cannot take it now: the sweeper queues it later (the message is stored).
      await enqueue(message, 1, 0).catch((err: unknown) =>
        log.warn({ err, message: message.id }, 'webhook delivery not queued yet; the sweeper will'),
      );
      return message;
    },

    async redeliver(m) {
      if (m.status === 'pending') {
        throw new AppError(
          'conflict',
          'This delivery is still being attempted; redeliver it once it has succeeded or failed',
        );
      }
      const waiting = await store.countPendingMessages(m.accountId);
      if (waiting >= config.maxWaiting) {
        throw new AppError(
          'rate_limited',
          `This account has ${waiting} webhook deliveries waiting, the most it may have; retry once they are delivered`,
          {
            retryAfter: 60,
          },
        );
      }
      const now = clock.now();
      const next = { ...m, status: 'pending' as const, seriesStartedAt: now, nextAttemptAt: now };
      await store.updateMessage(m.id, { status: 'pending', seriesStartedAt: now, nextAttemptAt: now });
      await enqueue(next, m.attempts + 1, 0).catch((err: unknown) =>
        log.warn({ err, message: m.id }, 'webhook redelivery not queued yet; the sweeper will'),
      );
      return next;
    },

    async sweep(graceMs) {
      const now = clock.now();
      const overdue = await store.listOverdueMessages(now - graceMs, 500);
      for (const m of overdue) {
        if (now > m.seriesStartedAt + config.retryMs) await finish(m, 'failed', m.attempts);
        else await enqueue(m, m.attempts + 1, 0);
      }
      return overdue.length;
    },

    async run(task, signal) {
      const { accountId, messageId, attempt } = task.data;
      const m = await store.getMessage(accountId, messageId);
      // Gone with its endpoint, finished, or a duplicate of an attempt already made.
      if (m?.status !== 'pending' || m.attempts + 1 !== attempt) return;
      const endpoint = await store.getEndpoint(accountId, m.endpointId);
      if (!endpoint || endpoint.disabledAt !== null) return finish(m, 'failed', m.attempts);
      signal.throwIfAborted();
      const now = clock.now();
      let secrets: string[];
      try {
        secrets = signingSecrets(endpoint, now);
      } catch (err) {
        // Sealed under another server secret: no attempt could ever be signed, so none is made.
        log.error(
          { err, endpoint: endpoint.id },
          'webhook secret cannot be opened (was CARDSHOT_SECRET changed?)',
        );
        return finish(m, 'failed', m.attempts);
      }
      const outcome = await attemptDelivery(deps.poster, {
        url: endpoint.url,
        id: m.id,
        body: m.body,
        secrets,
        now,
        timeoutMs: config.timeoutMs,
        signal,
      });
      deps.onAttempt?.(outcome.outcome, outcome.durationMs / 1000);
      if (outcome.detail)
        log.info(
          { endpoint: endpoint.id, message: m.id, attempt, detail: outcome.detail },
          outcome.error ?? '',
        );
      await store.insertAttempt({
        id: `atmpt_${randomBase62(20)}`,
        messageId: m.id,
        endpointId: endpoint.id,
        accountId,
        attempt,
        at: now,
        durationMs: outcome.durationMs,
        status: outcome.status,
        response: outcome.response,
        error: outcome.error,
      });
      if (outcome.result === 'succeeded') return finish(m, 'succeeded', attempt);
      if (outcome.result === 'gone') {
        await store.disableEndpoint(endpoint.id, clock.now(), 'The receiver answered 410 Gone');
        return finish(m, 'failed', attempt);
      }
      // The receiver's Retry-After wins over a shorter back-off, never over the 24-hour window.
      const delay = Math.max(backoff(attempt), outcome.retryAfterMs ?? 0);
      const at = clock.now() + delay;
      if (at > m.seriesStartedAt + config.retryMs) return finish(m, 'failed', attempt);
      // The next task first: a node that dies before the update below makes the queue run this
      // task again, whose add is then a no-op (same key); the other order could lose the retry.
      await enqueue(m, attempt + 1, delay);
      await store.updateMessage(m.id, { status: 'pending', attempts: attempt, nextAttemptAt: at });
    },
  };
}
