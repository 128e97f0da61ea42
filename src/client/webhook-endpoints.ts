import { sendJson, type TransportOptions } from './transport.js';

/** What an endpoint may subscribe to. */
export type WebhookEventType =
  | 'job.completed'
  | 'job.failed'
  | 'job.canceled'
  | 'render.succeeded'
  | 'render.failed'
  | 'delivery.succeeded'
  | 'delivery.failed';

/** An endpoint as GET /webhooks shows it: never its secret. */
export interface WebhookEndpoint {
  id: string;
  url: string;
  events: WebhookEventType[];
  /** `disabled` after its receiver answered 410 Gone: nothing is sent to it any more. */
  status: 'active' | 'disabled';
  disabledAt: string | null;
  disabledReason: string | null;
  /** Until when the secret a rotation replaced still signs beside the new one. */
  previousSecretExpiresAt: string | null;
  createdAt: string;
}

/** An endpoint just made or rotated: the only answers with its secret (`whsec_…`). Save it now. */
export type WebhookEndpointWithSecret = WebhookEndpoint & { secret: string };

/** One attempt to deliver a message. */
export interface WebhookAttempt {
  attempt: number;
  at: string;
  durationMs: number;
  /** The receiver's HTTP status; null when none came (time-out, refused, dropped). */
  status: number | null;
  /** The first 1 KB of the receiver's answer. */
  response: string;
  error: string | null;
}

/** A message and its attempts. */
export interface WebhookDelivery {
  /** The `webhook-id` header: the same on every attempt. */
  id: string;
  type: string;
  status: 'pending' | 'succeeded' | 'failed';
  createdAt: string;
  nextAttemptAt: string | null;
  attempts: WebhookAttempt[];
}

/** A page of an endpoint's delivery log, newest first. */
export interface DeliveryPage {
  deliveries: WebhookDelivery[];
  nextCursor: string | null;
}

type Call = { signal?: AbortSignal };
const enc = encodeURIComponent;

/** The account's webhook endpoints (/webhooks…). Reached as `cardshot.webhooks`. */
export class WebhooksApi {
  constructor(private readonly t: TransportOptions) {}

  /**
   * POST /webhooks: a new endpoint. Without `events` it gets job.completed, job.failed and
   * job.canceled. Its secret is in this answer only.
   */
  create(
    input: { url: string; events?: WebhookEventType[] },
    call: Call = {},
  ): Promise<WebhookEndpointWithSecret> {
    return sendJson(this.t, 'POST', '/webhooks', input, call);
  }

  /** GET /webhooks. */
  async list(call: Call = {}): Promise<WebhookEndpoint[]> {
    return (await sendJson<{ endpoints: WebhookEndpoint[] }>(this.t, 'GET', '/webhooks', undefined, call))
      .endpoints;
  }

  /** GET /webhooks/:id. */
  get(id: string, call: Call = {}): Promise<WebhookEndpoint> {
    return sendJson(this.t, 'GET', `/webhooks/${enc(id)}`, undefined, call);
  }

  /** DELETE /webhooks/:id. */
  async remove(id: string, call: Call = {}): Promise<void> {
    await sendJson<void>(this.t, 'DELETE', `/webhooks/${enc(id)}`, undefined, call);
  }

  /** POST /webhooks/:id/rotate: a new secret; the old one keeps signing beside it for 24 h. */
  rotate(id: string, call: Call = {}): Promise<WebhookEndpointWithSecret> {
    return sendJson(this.t, 'POST', `/webhooks/${enc(id)}/rotate`, undefined, call);
  }

  /** POST /webhooks/:id/test: queues a `webhook.test` message; its delivery, not yet attempted. */
  test(id: string, call: Call = {}): Promise<WebhookDelivery> {
    return sendJson(this.t, 'POST', `/webhooks/${enc(id)}/test`, undefined, call);
  }

  /** GET /webhooks/:id/deliveries: the delivery log, newest first, with every attempt. */
  deliveries(id: string, opts: { cursor?: string; limit?: number } & Call = {}): Promise<DeliveryPage> {
    const q = new URLSearchParams();
    if (opts.cursor !== undefined) q.set('cursor', opts.cursor);
    if (opts.limit !== undefined) q.set('limit', String(opts.limit));
    const query = q.size === 0 ? '' : `?${q}`;
    return sendJson(this.t, 'GET', `/webhooks/${enc(id)}/deliveries${query}`, undefined, opts);
  }

  /** POST /webhooks/:id/deliveries/:deliveryId/redeliver: the same message sent again. */
  redeliver(id: string, deliveryId: string, call: Call = {}): Promise<WebhookDelivery> {
    return sendJson(
      this.t,
      'POST',
      `/webhooks/${enc(id)}/deliveries/${enc(deliveryId)}/redeliver`,
      undefined,
      call,
    );
  }
}
