import { Counter, Histogram, type Registry } from 'prom-client';

/** Waits from under a millisecond (a free slot) to the whole 15 s deadline (a long line). */
const WAIT_SECONDS = [0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30];

/**
 * The fair-share metrics of the screenshot queue, by plan (a bounded label): how long captures
 * wait for a slot, and how many were refused because their account's share was full. Registered
 * on the app's registry, like the other modules' own metrics.
 */
export function screenshotQueueMetrics(registry: Registry): {
  onQueueWait: (plan: string, seconds: number) => void;
  onAccountBusy: (plan: string) => void;
} {
  const wait = new Histogram({
    name: 'cardshot_screenshot_queue_wait_seconds',
    help: "Time screenshot captures waited for a browser slot, by the plan of the request's account.",
    labelNames: ['plan'] as const,
    buckets: WAIT_SECONDS,
    registers: [registry],
  });
  const refused = new Counter({
    name: 'cardshot_screenshot_account_busy_total',
    help: "Screenshots refused with 429 because the account's share of the queue (its plan's screenshots.concurrency and queue) was full, by plan.",
    labelNames: ['plan'] as const,
    registers: [registry],
  });
  return {
    onQueueWait: (plan, seconds) => wait.observe({ plan }, seconds),
    onAccountBusy: (plan) => refused.inc({ plan }),
  };
}
