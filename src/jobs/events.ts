/**
 * What the jobs area tells the webhooks area. Jobs publish their events here; the webhooks area
 * implements it (signs and delivers them as queue tasks), so jobs never know about HTTP
 * deliveries and the webhooks area never reads job tables.
 */

export type JobEventType =
  | 'job.completed'
  | 'job.failed'
  | 'job.canceled'
  | 'render.succeeded'
  | 'render.failed'
  // Issue 31 §3: an item uploaded to the job's storage target, or not (delivery/jobs.ts).
  | 'delivery.succeeded'
  | 'delivery.failed';

export interface JobEvent {
  /**
   * The event's own id (the jobs outbox row's). Publishing one id again (a relay that died
   * before it could mark it done) queues nothing new: each endpoint's message id, the
   * `webhook-id` a receiver sees, is derived from it, so the receiver can tell the repeat.
   */
  id?: string;
  /** When it happened (unix ms): the body's `timestamp`; now when absent. */
  at?: number;
  type: JobEventType;
  /** The webhook body's `data`: ids, counts and signed links, never image bytes (< 20 KB in all). */
  data: Record<string, unknown>;
  /**
   * The endpoint the job named at submission; absent: every endpoint of the account that
   * subscribes to `type`.
   */
  endpointId?: string;
}

export interface JobEventSink {
  /** 400 (AppError) unless `endpointId` is an endpoint of `accountId`: checked at submission. */
  checkEndpoint(accountId: string, endpointId: string): Promise<void>;
  /**
   * Queues the event's deliveries; resolves once they are durably stored (not delivered). With
   * `event.id`, idempotent: a second publish of one id stores and sends nothing new.
   */
  publish(accountId: string, event: JobEvent): Promise<void>;
  /**
   * Whether any endpoint would take `type` (the job's named one, or any of the account's); the
   * jobs area writes per-item events only then. May answer from a cache of a few seconds.
   */
  wants?(accountId: string, type: JobEventType, endpointId?: string): Promise<boolean>;
}
