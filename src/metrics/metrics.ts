import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Prometheus metrics. Each app gets its own registry (tests run several apps in one process);
 * the process metrics (CPU, memory, event loop, GC) live in one registry per process, because
 * prom-client's collectors for them start timers and observers that cannot be stopped.
 *
 * Every label has a bounded set of values: the route PATTERN (never the raw URL), the status,
 * the method, a template name, a tier name, a plan name, an error code or a failure reason.
 */
export interface Metrics {
  /** This app's registry; a later module (a Redis cache tier, …) may register its own metrics here. */
  readonly registry: Registry;
  /** One finished HTTP request; `route` is the pattern (`/render/url`), or `unmatched`. */
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  /** One template drawn by the renderer (cache hits and 304s are not renders). */
  observeRender(template: string, seconds: number): void;
  /** One screenshot attempt, from waiting for a slot to the PNG: `ok` or the error code. */
  observeCapture(outcome: string, seconds: number): void;
  /** One lookup in one cache tier. */
  observeCacheLookup(tier: string, hit: boolean): void;
  /** One request refused with 429. */
  rateLimited(plan: string): void;
  /** One imageUrl that could not be used, by reason (timeout, refused, too_large, …). */
  imageFetchFailed(reason: string): void;
  /** One task refused because a work queue was full (503). */
  queueRejected(queue: string): void;
  /** One webhook delivery attempt, by outcome (`delivered`, `http_status`, `timeout`, …). */
  observeWebhookAttempt(outcome: string, seconds: number): void;
  /** Adds a source of values read at scrape time (pool, queues, cache sizes). */
  sample(name: string, read: () => Samples): void;
  /** The Prometheus text exposition of this app and the process. */
  text(): Promise<string>;
  readonly contentType: string;
}

/** Values read at scrape time; each is optional so a source reports what it knows. */
export interface Samples {
  /** Per queue: tasks running, waiting, and the most that may run at once. */
  queues?: Record<string, { active: number; waiting: number; concurrency: number }>;
  /** Per cache tier: entries and bytes held. */
  cacheTiers?: Record<string, { entries: number; bytes: number }>;
  browser?: {
    /** 1 when a browser process is running. */
    up: number;
    /** Browser contexts created ahead of demand and not yet used. */
    spares: number;
    /** Browsers started since this process started (first launch, recycles, crashes). */
    launches: number;
    /** Browsers that went away unexpectedly. */
    crashes: number;
    /** Pages lowered to a low CPU priority (nice 10) for keeping a core busy. */
    busyPagesLowered: number;
  };
  /** 1 while Redis cannot answer and rate limits are kept per process. */
  rateLimitDegraded?: number;
}

/** Request and phase durations from 1 ms (a cache hit) to 30 s (a slow screenshot). */
const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const RENDER_SECONDS = [0.0025, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28];
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

let processRegistry: Registry | undefined;
const NON_COUNTER_TOTALS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** The process-wide registry of CPU, memory, event-loop and GC metrics (created once). */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
    // prom-client names three gauges `…_total`, a suffix Prometheus keeps for counters, so
    // `promtool check metrics` fails on them; the same numbers stay available by resource type
    // (`nodejs_active_handles`, `nodejs_active_requests`, `nodejs_active_resources`).
    for (const name of NON_COUNTER_TOTALS) processRegistry.removeSingleMetric(name);
  }
  return processRegistry;
}

/**
 * Creates the metrics of one app. Disabled (no CARDSHOT_METRICS_TOKEN, so nobody can read them),
 * nothing is collected and the request path pays nothing for them.
 */
export function createMetrics(opts: { version: string; enabled?: boolean }): Metrics {
  if (opts.enabled === false) return disabledMetrics();
  const registry = new Registry();
  const sources = new Map<string, () => Samples>();
  const all = () => [...sources.values()].map((read) => read());

  const requests = new Counter({
    name: 'cardshot_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const requestSeconds = new Histogram({
    name: 'cardshot_http_request_duration_seconds',
    help: 'Time from receiving a request to sending the last byte, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: SECONDS,
    registers: [registry],
  });
  const renders = new Histogram({
    name: 'cardshot_template_render_duration_seconds',
    help: 'Template renders (layout, drawing and PNG encoding; not cache hits), by template.',
    labelNames: ['template'] as const,
    buckets: RENDER_SECONDS,
    registers: [registry],
  });
  const captures = new Histogram({
    name: 'cardshot_screenshot_capture_duration_seconds',
    help: 'Screenshot captures from waiting for a browser slot to the encoded PNG, by outcome (ok or the error code).',
    labelNames: ['outcome'] as const,
    buckets: SECONDS,
    registers: [registry],
  });
  const cacheLookups = new Counter({
    name: 'cardshot_cache_lookups_total',
    help: 'PNG cache lookups per tier and result (hit or miss); a miss in one tier goes on to the next.',
    labelNames: ['tier', 'result'] as const,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'cardshot_rate_limited_total',
    help: 'Requests refused with 429 because the account used up its rate limit, by plan.',
    labelNames: ['plan'] as const,
    registers: [registry],
  });
  const imageFailures = new Counter({
    name: 'cardshot_image_fetch_failures_total',
    help: 'imageUrl fetches or decodes that failed (422), by reason.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const queueRejections = new Counter({
    name: 'cardshot_queue_rejections_total',
    help: 'Tasks refused with 503 because a work queue was full, by queue.',
    labelNames: ['queue'] as const,
    registers: [registry],
  });
  const webhookAttempts = new Histogram({
    name: 'cardshot_webhook_attempt_duration_seconds',
    help: 'Webhook delivery attempts, from connecting to the first 4 KB of the answer, by outcome.',
    labelNames: ['outcome'] as const,
    buckets: SECONDS,
    registers: [registry],
  });

  // Scrape-time values: every gauge is rebuilt from the sources, so a source that goes away
  // (a closed module) leaves no stale series behind.
  const gauge = (name: string, help: string, labelNames: string[], fill: (g: Gauge) => void) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        fill(this);
      },
    });
  const queues = () => all().flatMap((s) => Object.entries(s.queues ?? {}));
  gauge('cardshot_queue_active', 'Tasks running now, by queue.', ['queue'], (g) => {
    for (const [queue, q] of queues()) g.set({ queue }, q.active);
  });
  gauge('cardshot_queue_waiting', 'Tasks waiting for a slot, by queue (the queue depth).', ['queue'], (g) => {
    for (const [queue, q] of queues()) g.set({ queue }, q.waiting);
  });
  gauge('cardshot_queue_concurrency', 'Tasks that may run at once, by queue.', ['queue'], (g) => {
    for (const [queue, q] of queues()) g.set({ queue }, q.concurrency);
  });
  const tiers = () => all().flatMap((s) => Object.entries(s.cacheTiers ?? {}));
  gauge('cardshot_cache_entries', 'PNG cache entries held, by tier.', ['tier'], (g) => {
    for (const [tier, t] of tiers()) g.set({ tier }, t.entries);
  });
  gauge('cardshot_cache_bytes', 'PNG cache bytes held, by tier.', ['tier'], (g) => {
    for (const [tier, t] of tiers()) g.set({ tier }, t.bytes);
  });
  const browser = () => all().find((s) => s.browser)?.browser;
  gauge('cardshot_browser_up', '1 when a Chromium process is running for screenshots.', [], (g) => {
    g.set(browser()?.up ?? 0);
  });
  gauge(
    'cardshot_browser_spare_contexts',
    'Fresh browser contexts created ahead of demand, waiting for a screenshot request.',
    [],
    (g) => g.set(browser()?.spares ?? 0),
  );
  gauge(
    'cardshot_rate_limit_degraded',
    '1 while Redis cannot answer and rate limits are kept per process.',
    [],
    (g) => g.set(all().find((s) => s.rateLimitDegraded !== undefined)?.rateLimitDegraded ?? 0),
  );
  // Counters the pool keeps itself: exposed as counters by adding what changed since the last scrape.
  const mirror = (name: string, help: string, read: () => number | undefined) => {
    let last = 0;
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        const now = read() ?? last;
        if (now > last) this.inc(now - last);
        last = now;
      },
    });
  };
  mirror(
    'cardshot_browser_launches_total',
    'Chromium processes started (first launch, recycles, after crashes).',
    () => browser()?.launches,
  );
  mirror(
    'cardshot_browser_crashes_total',
    'Chromium processes that went away unexpectedly.',
    () => browser()?.crashes,
  );
  mirror(
    'cardshot_browser_busy_pages_lowered_total',
    'Screenshotted pages that kept a core busy and were lowered to a low CPU priority (nice 10).',
    () => browser()?.busyPagesLowered,
  );
  new Gauge({
    name: 'cardshot_build_info',
    help: 'Always 1; the labels say which Cardshot and Node.js are running.',
    labelNames: ['version', 'node'] as const,
    registers: [registry],
  }).set({ version: opts.version, node: process.versions.node }, 1);

  const proc = processMetrics();

  return {
    registry,
    contentType: registry.contentType,
    observeRequest(method, route, status, seconds) {
      const labels = { method: METHODS.has(method) ? method : 'OTHER', route, status: String(status) };
      requests.inc(labels);
      requestSeconds.observe(labels, seconds);
    },
    observeRender(template, seconds) {
      renders.observe({ template }, seconds);
    },
    observeCapture(outcome, seconds) {
      captures.observe({ outcome }, seconds);
    },
    observeCacheLookup(tier, hit) {
      cacheLookups.inc({ tier, result: hit ? 'hit' : 'miss' });
    },
    rateLimited(plan) {
      rateLimited.inc({ plan });
    },
    imageFetchFailed(reason) {
      imageFailures.inc({ reason });
    },
    queueRejected(queue) {
      queueRejections.inc({ queue });
    },
    observeWebhookAttempt(outcome, seconds) {
      webhookAttempts.observe({ outcome }, seconds);
    },
    sample(name, read) {
      sources.set(name, read);
    },
    async text() {
      return `${await registry.metrics()}\n${await proc.metrics()}`;
    },
  };
}

/** Metrics that record nothing: every call is a no-op. */
function disabledMetrics(): Metrics {
  const noop = () => {};
  const registry = new Registry();
  return {
    registry,
    contentType: registry.contentType,
    observeRequest: noop,
    observeRender: noop,
    observeCapture: noop,
    observeCacheLookup: noop,
    rateLimited: noop,
    imageFetchFailed: noop,
    queueRejected: noop,
    observeWebhookAttempt: noop,
    sample: noop,
    text: async () => '',
  };
}
