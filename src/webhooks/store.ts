/**
 * What the webhooks area stores: endpoints (with their signing secrets sealed under the server
 * secret), messages (one event for one endpoint, retried under one `webhook-id`) and every
 * delivery attempt. The kysely implementation (storage/kysely-webhooks.ts) runs on SQLite and
 * PostgreSQL and passes the store contract suite on both.
 */

/** Whether a message still has attempts to come. */
export type MessageStatus = 'pending' | 'succeeded' | 'failed';

export interface EndpointRecord {
  /** `ep_…` */
  id: string;
  accountId: string;
  url: string;
  /** Event types it subscribes to (`webhook.test` is always delivered). */
  events: string[];
  /** The `whsec_…` secret, sealed (ServerSecrets.seal) with the endpoint id as context. */
  secretSealed: string;
  /** The secret a rotation replaced: it still signs until `previousUntil`. */
  previousSealed: string | null;
  previousUntil: number | null;
  /** Set when a receiver answered 410 Gone: nothing more is delivered to it. */
  disabledAt: number | null;
  disabledReason: string | null;
  createdAt: number;
}

export interface MessageRecord {
  /** `msg_…`: the `webhook-id`, the same on every attempt. */
  id: string;
  endpointId: string;
  accountId: string;
  type: string;
  /** The exact JSON body sent on every attempt. */
  body: string;
  createdAt: number;
  status: MessageStatus;
  /** Attempts made so far (a redelivery continues the count). */
  attempts: number;
  /** When the current series of attempts began (creation, or the last redelivery): retries stop 24 h after. */
  seriesStartedAt: number;
  /** When the next attempt is due (pending only). */
  nextAttemptAt: number | null;
}

export interface AttemptRecord {
  /** `atmpt_…` */
  id: string;
  messageId: string;
  endpointId: string;
  accountId: string;
  /** 1 for the first attempt of the message. */
  attempt: number;
  at: number;
  durationMs: number;
  /** The receiver's HTTP status; null when none came (time-out, refused, connection dropped). */
  status: number | null;
  /** The first 1 KB of the answer's body (UTF-8, lossy). */
  response: string;
  /** Why the attempt failed, in words safe to show the account; null on success. */
  error: string | null;
}

/** Changes to a message after an attempt or a redelivery. */
export interface MessageUpdate {
  status: MessageStatus;
  attempts?: number;
  nextAttemptAt: number | null;
  seriesStartedAt?: number;
}

export interface WebhookStore {
  insertEndpoint(endpoint: EndpointRecord): Promise<void>;
  /** The account's endpoints, oldest first. */
  listEndpoints(accountId: string): Promise<EndpointRecord[]>;
  /** The endpoint if it belongs to `accountId` (another account's id reads as missing). */
  getEndpoint(accountId: string, id: string): Promise<EndpointRecord | undefined>;
  countEndpoints(accountId: string): Promise<number>;
  /** Deletes the endpoint with its messages and attempts; false when the account has no such endpoint. */
  deleteEndpoint(accountId: string, id: string): Promise<boolean>;
  /** Replaces the secrets (a rotation); false when the account has no such endpoint. */
  setEndpointSecrets(
    accountId: string,
    id: string,
    secrets: { secretSealed: string; previousSealed: string | null; previousUntil: number | null },
  ): Promise<boolean>;
  disableEndpoint(id: string, at: number, reason: string): Promise<void>;

  insertMessage(message: MessageRecord): Promise<void>;
  /** The message if it belongs to `accountId`. */
  getMessage(accountId: string, id: string): Promise<MessageRecord | undefined>;
  updateMessage(id: string, update: MessageUpdate): Promise<void>;
  /** Pending messages of the account (the per-account bound on waiting deliveries). */
  countPendingMessages(accountId: string): Promise<number>;
  /** The endpoint's messages, newest first, `limit` of them created before the cursor message. */
  listMessages(
    endpointId: string,
    opts: { limit: number; before?: { createdAt: number; id: string } },
  ): Promise<MessageRecord[]>;

  /**
   * Pending messages (any account) whose next attempt was due before `before`, oldest first:
   * what the sweeper queues again in case their task was lost.
   */
  listOverdueMessages(before: number, limit: number): Promise<MessageRecord[]>;

  insertAttempt(attempt: AttemptRecord): Promise<void>;
  /** The attempts of these messages, in attempt order. */
  listAttempts(messageIds: readonly string[]): Promise<AttemptRecord[]>;

  /** Deletes messages (and their attempts) created before `before`; how many. */
  purgeMessages(before: number): Promise<number>;
}
