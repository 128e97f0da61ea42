import type { AttemptRecord, EndpointRecord, MessageRecord } from './store.js';

/** An endpoint as the API shows it: never its secret. */
export interface EndpointView {
  id: string;
  url: string;
  events: string[];
  /** `active`, or `disabled` after a 410 Gone. */
  status: 'active' | 'disabled';
  disabledAt: string | null;
  disabledReason: string | null;
  /** Until when the secret a rotation replaced still signs (null: none does). */
  previousSecretExpiresAt: string | null;
  createdAt: string;
}

export interface AttemptView {
  attempt: number;
  at: string;
  durationMs: number;
  status: number | null;
  /** The first 1 KB of the receiver's answer. */
  response: string;
  error: string | null;
}

export interface DeliveryView {
  /** The `webhook-id` (the same on every attempt). */
  id: string;
  type: string;
  status: 'pending' | 'succeeded' | 'failed';
  createdAt: string;
  nextAttemptAt: string | null;
  attempts: AttemptView[];
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** `now` decides whether a rotated secret still signs. */
export function endpointView(e: EndpointRecord, now: number): EndpointView {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    status: e.disabledAt === null ? 'active' : 'disabled',
    disabledAt: iso(e.disabledAt),
    disabledReason: e.disabledReason,
    previousSecretExpiresAt: e.previousUntil !== null && e.previousUntil > now ? iso(e.previousUntil) : null,
    createdAt: new Date(e.createdAt).toISOString(),
  };
}

export function deliveryView(m: MessageRecord, attempts: readonly AttemptRecord[]): DeliveryView {
  return {
    id: m.id,
    type: m.type,
    status: m.status,
    createdAt: new Date(m.createdAt).toISOString(),
    nextAttemptAt: iso(m.nextAttemptAt),
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      at: new Date(a.at).toISOString(),
      durationMs: a.durationMs,
      status: a.status,
      response: a.response,
      error: a.error,
    })),
  };
}
