import type { JobEventType } from '../jobs/events.js';

/** Events an endpoint may subscribe to (the jobs area publishes them). */
export const WEBHOOK_EVENTS: readonly JobEventType[] = [
  'job.completed',
  'job.failed',
  'job.canceled',
  'render.succeeded',
  'render.failed',
  'delivery.succeeded',
  'delivery.failed',
];

/** What an endpoint gets when it names no events: one message per job, none per item. */
export const DEFAULT_EVENTS: readonly JobEventType[] = ['job.completed', 'job.failed', 'job.canceled'];

/** Sent by POST /webhooks/:id/test, whatever the endpoint subscribes to. */
export const TEST_EVENT = 'webhook.test';

/** A message body's limit: links and ids only, never image bytes. */
export const MAX_BODY_BYTES = 20 * 1024;

/**
 * The body every attempt of a message sends, byte for byte: `{"type","timestamp","data"}`
 * (Standard Webhooks' shape; `timestamp` is when the event happened, ISO 8601). Throws when it
 * would pass 20 KB: an event carries links, and a larger one is a bug of its publisher.
 */
export function eventBody(type: string, data: Record<string, unknown>, at: number): string {
  const body = JSON.stringify({ type, timestamp: new Date(at).toISOString(), data });
  const bytes = Buffer.byteLength(body);
  if (bytes >= MAX_BODY_BYTES) {
    throw new Error(
      `a ${type} webhook body would be ${bytes} bytes; events must stay under 20 KB (links, not content)`,
    );
  }
  return body;
}
