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
  /** Queues the event's deliveries; resolves once they are durably queued (not delivered). */
  publish(accountId: string, event: JobEvent): Promise<void>;
}
