/**
 * The HTTP server's settings: where it listens, how it logs, what it serves besides the API,
 * how it stops and how clients reach it. Three runs, so the docs keep their order.
 */
import { type ConfigOf, MiB, type SettingsGroup } from '../config/setting.js';
import { trustProxyProblem } from './trust-proxy.js';

/** Listening, logging, metrics and the API docs. */
export const serverSettings = {
  port: {
    kind: 'int',
    default: 3000,
    min: 0,
    max: 65535,
    env: 'PORT',
    description: 'TCP port to listen on.',
  },
  host: {
    kind: 'string',
    default: '127.0.0.1',
    env: 'HOST',
    description:
      'Interface to bind. The default serves this machine only; use 0.0.0.0 in a container or behind a load balancer.',
  },
  nodeEnv: {
    kind: 'enum',
    default: 'development',
    values: ['development', 'production', 'test'],
    env: 'NODE_ENV',
    description: 'Runtime mode; production logs JSON only.',
  },
  logLevel: {
    kind: 'enum',
    default: 'info',
    values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    description: 'Minimum log level.',
  },
  logFormat: {
    kind: 'enum',
    default: 'auto',
    values: ['auto', 'json', 'pretty'],
    description:
      'auto: one JSON object per line, except readable coloured lines when stdout is a terminal and NODE_ENV is not production. json or pretty force one of them.',
  },
  metricsToken: {
    kind: 'string',
    default: '',
    secret: true,
    check: (v) =>
      v !== '' && v.length < 16
        ? 'must be at least 16 characters (openssl rand -hex 32 makes one)'
        : undefined,
    description:
      'Bearer token that GET /metrics (Prometheus text format) requires, 16+ characters. Empty: metrics are not collected and /metrics answers 404.',
  },
  apiDocs: {
    kind: 'bool',
    default: true,
    description:
      'Serve the OpenAPI document at /openapi.json and interactive API docs at /docs (bundled, no CDN). They describe the API only, never keys or data.',
  },
} as const satisfies SettingsGroup;

/** Stopping, and the address and proxies clients come through. */
export const serviceSettings = {
  shutdownGraceMs: {
    kind: 'int',
    default: 10_000,
    min: 1000,
    max: 600_000,
    description:
      'On SIGTERM or SIGINT: how long in-flight requests and the last usage write get before the process exits anyway (status 1); a watchdog process SIGKILLs it, and its Chromium, at this time if even that is stuck (status 137).',
  },
  publicUrl: {
    kind: 'string',
    default: '',
    description:
      'The address users reach Cardshot at (https://cards.example.com), used in invite links and in the og:image tags the dashboard playground writes. Empty: the address and port each connection arrived at (never the Host header); the CLI uses the address the server on its data dir listens at.',
  },
  trustProxy: {
    kind: 'string',
    default: 'false',
    check: trustProxyProblem,
    description:
      'Which proxies X-Forwarded-For, -Proto and -Host are believed from (client address for sign-in limits, https for Secure cookies). false: none. A number of hops, e.g. 1: the nearest proxy, so the client is the right-most X-Forwarded-For entry (use it only when nothing but the proxies can reach Cardshot). Or a comma-separated list of proxy addresses or CIDR ranges (10.0.0.0/8,::1), the safer choice. The old value true means 1, not every hop.',
  },
} as const satisfies SettingsGroup;

/** Limits on what one request may send. */
export const requestSettings = {
  bodyLimitBytes: {
    kind: 'int',
    default: 16 * 1024,
    min: 1024,
    max: MiB,
    description: 'Largest accepted request body; larger bodies get 413.',
  },
} as const satisfies SettingsGroup;

/** What the HTTP server reads. */
export type HttpConfig = ConfigOf<typeof serverSettings & typeof serviceSettings & typeof requestSettings>;
