import { describe, expect, it } from 'vitest';
import { DeliveryError } from '../../src/delivery/errors.js';
import { createJobDelivery } from '../../src/delivery/jobs.js';
import type { TargetRecord } from '../../src/delivery/store.js';
import type { JobEvent } from '../../src/jobs/events.js';

// An item whose node dies after its upload, before its result is recorded, runs again on
// another node and uploads again: its delivery event must carry the same id both times, so the
// webhooks area (which stores an event id once) sends the receiver one message, not two.
const target = { id: 'stg_1' } as TargetRecord;

function delivery(fail: () => boolean, wants?: (type: string) => boolean) {
  const published: JobEvent[] = [];
  const asked: string[] = [];
  const d = createJobDelivery({
    service: {
      resolve: async () => target,
      deliver: async () => {
        if (fail()) throw new DeliveryError('NoSuchBucket', 'the bucket does not exist', false);
        return { bucket: 'b', key: 'k', url: 'http://s3/b/k', etag: '"e"' };
      },
    } as never,
    store: {
      setJobTarget: async () => {},
      jobTarget: async () => 'stg_1',
      getTarget: async () => target,
    },
    events: {
      checkEndpoint: async () => {},
      publish: async (_a, e) => void published.push(e),
      ...(wants
        ? {
            wants: async (_a: string, type: string) => {
              asked.push(type);
              return wants(type);
            },
          }
        : {}),
    },
  });
  return { d, published, asked };
}

const job = { id: 'job_a', accountId: 'acc_1', webhook: null };
const rendered = { body: Buffer.from('png'), contentType: 'image/png', etag: '"x"' };
const item = (index: number) => ({ index, kind: 'card', request: '{"template":"blog"}' });

describe('delivery events of a job item', () => {
  it('carry one id per item and outcome, the same when the item runs again', async () => {
    let failing = false;
    const { d, published } = delivery(() => failing);
    await d.deliverItem(job, item(0), rendered);
    await d.deliverItem(job, item(0), rendered); // the rerun after a lost node
    await d.deliverItem(job, item(1), rendered);
    failing = true;
    expect(await d.deliverItem(job, item(2), rendered)).toEqual({
      error: 'could not store the result in storage stg_1: NoSuchBucket: the bucket does not exist',
    });
    expect(published.map((e) => [e.type, e.id])).toEqual([
      ['delivery.succeeded', 'dlv_job_a_0_ok'],
      ['delivery.succeeded', 'dlv_job_a_0_ok'],
      ['delivery.succeeded', 'dlv_job_a_1_ok'],
      ['delivery.failed', 'dlv_job_a_2_failed'],
    ]);
  });

  it('are published only when an endpoint wants them (asked of the sink, which caches)', async () => {
    let failing = false;
    const { d, published, asked } = delivery(
      () => failing,
      (type) => type === 'delivery.failed',
    );
    await d.deliverItem(job, item(0), rendered);
    failing = true;
    await d.deliverItem(job, item(1), rendered);
    expect(asked).toEqual(['delivery.succeeded', 'delivery.failed']);
    expect(published.map((e) => [e.type, e.id])).toEqual([['delivery.failed', 'dlv_job_a_1_failed']]);
  });
});
