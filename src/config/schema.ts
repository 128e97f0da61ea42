import os from 'node:os';
import { presetProblem } from '../render/screenshot/viewports.js';
import { trustProxyProblem } from './trust-proxy.js';

/**
 * The one configuration schema. Every setting has a default, a description and an
 * environment name derived from its key (camelCase → CARDSHOT_SNAKE_CASE), except the
 * conventional names listed in `env`. `docs/configuration.md` and the README table are
 * generated from this object (`npx cardshot config --markdown`), so describe settings here.
 */
type Kind = 'string' | 'int' | 'bool' | 'list' | 'enum';

interface SettingBase<K extends Kind, V> {
  kind: K;
  default: V;
  description: string;
  /** Conventional environment name (PORT, HOST, …); otherwise derived. */
  env?: string;
  /** Secrets are masked when the configuration is printed. */
  secret?: boolean;
}
interface StringSetting extends SettingBase<'string', string> {
  /** Why the value is unusable, or undefined; checked once at start. */
  check?: (value: string) => string | undefined;
}
interface IntSetting extends SettingBase<'int', number> {
  min: number;
  max: number;
}
interface EnumSetting extends SettingBase<'enum', string> {
  values: readonly string[];
}
interface ListSetting extends SettingBase<'list', readonly string[]> {
  /** Why the items are unusable, or undefined; checked once at start. */
  check?: (items: readonly string[]) => string | undefined;
}
export type Setting = StringSetting | SettingBase<'bool', boolean> | ListSetting | IntSetting | EnumSetting;

const MiB = 1024 * 1024;

export const settings = {
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
  dataDir: {
    kind: 'string',
    default: './data',
    description:
      'Directory for the state Cardshot keeps: the SQLite database, the generated server secret and the PNG disk cache.',
  },
  databaseUrl: {
    kind: 'string',
    default: '',
    env: 'DATABASE_URL',
    secret: true,
    description:
      'Where accounts, keys and usage live. Empty: a SQLite file, CARDSHOT_DATA_DIR/cardshot.sqlite. postgres://user:pass@host:5432/db: PostgreSQL (same tables, migrated at start).',
  },
  databaseSchema: {
    kind: 'string',
    default: 'public',
    description: 'PostgreSQL schema that holds the tables (created when missing). Ignored with SQLite.',
  },
  databaseTimeoutMs: {
    kind: 'int',
    default: 3000,
    min: 100,
    max: 60_000,
    description:
      'Longest a request waits for the database to check a key (a database that hangs rather than refuses). Past it, keys verified in the last 30 s are still admitted and others get 503.',
  },
  redisUrl: {
    kind: 'string',
    default: '',
    env: 'REDIS_URL',
    secret: true,
    description:
      'redis://host:6379/0 for running several nodes: shared rate limits, a shared PNG cache tier, one capture per URL across nodes (locks) and key-revocation notices. Empty: all of it is kept per process. When Redis is unreachable or slow, every node bypasses it within CARDSHOT_REDIS_TIMEOUT_MS and returns to it by itself.',
  },
  redisPrefix: {
    kind: 'string',
    default: 'cardshot:',
    description:
      'Prefix of every Redis key and channel Cardshot uses, so several deployments can share one Redis.',
  },
  redisTimeoutMs: {
    kind: 'int',
    default: 50,
    min: 5,
    max: 100,
    description:
      'Longest a request waits for Redis (a rate-limit check, a cache read, a lock) before the node bypasses Redis: limits per process, local cache, no cross-node locks, until a background probe finds it answering again.',
  },
  cacheRedisMaxEntryBytes: {
    kind: 'int',
    default: 4 * MiB,
    min: 0,
    max: 512 * MiB,
    description:
      "Largest PNG stored in the Redis cache tier (larger ones stay in the node's own memory and disk tiers). 0 turns the Redis tier off. Bound the tier's total with Redis maxmemory and an LRU policy (docs/deploy.md).",
  },
  cacheRedisTtlSeconds: {
    kind: 'int',
    default: 7 * 86_400,
    min: 60,
    max: 31_536_000,
    description:
      'Longest any PNG lives in Redis: cards (which never change) are dropped after it, screenshots after the shorter of it and their own cache time.',
  },
  secret: {
    kind: 'string',
    default: '',
    secret: true,
    description:
      'Server secret (32+ characters) that keys are hashed with (HMAC-SHA-256) and signing secrets derived from. Empty: generated once into CARDSHOT_DATA_DIR/secret. Every node of one deployment needs the same value.',
  },
  plansFile: {
    kind: 'string',
    default: '',
    description:
      'JSON file of plans (templates, screenshot viewports, rate limit) merged over the built-in free and pro plans; see docs/api.md.',
  },
  firstRunKey: {
    kind: 'bool',
    default: true,
    description:
      'On the first start with an empty database, create a default account on the pro plan, a development key and a dashboard invite, shown once: printed when stdout is a terminal, otherwise (nohup, systemd, docker logs keep stdout) written to CARDSHOT_DATA_DIR/first-run.txt (0600; an existing one is never replaced: a later first run, say on a new empty database, writes first-run-2.txt).',
  },
  keyCacheSeconds: {
    kind: 'int',
    default: 5,
    min: 0,
    max: 60,
    description:
      'How long a verified key is trusted without asking the database again. With REDIS_URL a revocation or plan change (dashboard or CLI, on any node) reaches every node at once; without Redis, or when a notice is lost, it takes effect within this time.',
  },
  usageFlushSeconds: {
    kind: 'int',
    default: 5,
    min: 1,
    max: 300,
    description: 'Usage counters are written to the database in one batch this often (off the request path).',
  },
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
  sessionIdleMinutes: {
    kind: 'int',
    default: 720,
    min: 5,
    max: 43_200,
    description: 'A dashboard session ends after this many minutes without a request.',
  },
  sessionMaxHours: {
    kind: 'int',
    default: 168,
    min: 1,
    max: 8_760,
    description: 'A dashboard session ends this many hours after sign-in, however active.',
  },
  inviteHours: {
    kind: 'int',
    default: 72,
    min: 1,
    max: 720,
    description:
      'How long a one-time invite link (printed by `accounts create` and `accounts invite`) works.',
  },
  maxKeysPerAccount: {
    kind: 'int',
    default: 20,
    min: 1,
    max: 10_000,
    description:
      'The most active (not revoked, not expired) API keys one account may hold; creating one more is refused with 409 until one is revoked. Rotation is not counted.',
  },
  signInLimitPerEmail: {
    kind: 'int',
    default: 10,
    min: 1,
    max: 10_000,
    description:
      'Dashboard sign-in attempts allowed per email address from one client address (an IPv6 /64) in CARDSHOT_SIGN_IN_WINDOW_SECONDS; ten times this from all addresses together, except from a browser that signed in as that email before (a device cookie, which has this budget of its own), so a stranger cannot lock the owner out of a browser they have used.',
  },
  signInLimitPerIp: {
    kind: 'int',
    default: 50,
    min: 1,
    max: 100_000,
    description:
      'Dashboard sign-in attempts allowed per client address (an IPv6 /64) in CARDSHOT_SIGN_IN_WINDOW_SECONDS.',
  },
  signInWindowSeconds: {
    kind: 'int',
    default: 900,
    min: 10,
    max: 86_400,
    description: 'The sliding window of the sign-in limits.',
  },
  allowPrivateHosts: {
    kind: 'list',
    default: [],
    description:
      'Comma-separated host:port pairs the URL guard lets through although they are private (for example 127.0.0.1:8080 for a local fixture). Empty by default: never set it to reach internal services in production.',
  },
  bodyLimitBytes: {
    kind: 'int',
    default: 16 * 1024,
    min: 1024,
    max: MiB,
    description: 'Largest accepted request body; larger bodies get 413.',
  },
  renderConcurrency: {
    kind: 'int',
    default: Math.max(1, os.availableParallelism()),
    min: 1,
    max: 64,
    description: 'Template renders run at once (default: the number of cores).',
  },
  renderQueueSize: {
    kind: 'int',
    default: 256,
    min: 0,
    max: 100_000,
    description: 'Template renders that may wait for a slot; past it requests get 503 with Retry-After.',
  },
  cacheMemoryBytes: {
    kind: 'int',
    default: 128 * MiB,
    min: 0,
    max: 64 * 1024 * MiB,
    description: 'Byte budget of the in-memory PNG cache (0 turns it off).',
  },
  cacheDiskBytes: {
    kind: 'int',
    default: 1024 * MiB,
    min: 0,
    max: 1024 * 1024 * MiB,
    description: 'Byte budget of the PNG cache on disk under CARDSHOT_DATA_DIR/cache (0 turns it off).',
  },
  diskMinFreeBytes: {
    kind: 'int',
    default: 128 * MiB,
    min: 0,
    max: 1024 * 1024 * MiB,
    description:
      "Free space kept on the data dir's disk: the disk cache gives space back (oldest first) and writes no more below it, so the database always has room; /readyz reports `degraded` under it.",
  },
  imageTimeoutMs: {
    kind: 'int',
    default: 5000,
    min: 100,
    max: 60_000,
    description: 'Total time allowed to fetch an imageUrl (DNS, connect, redirects, body).',
  },
  imageMaxBytes: {
    kind: 'int',
    // Was 10 MB: 150 slow cards could then hold 1.4 GB of bodies (issue 20).
    default: 5 * 1000 * 1000,
    min: 1024,
    max: 100 * 1000 * 1000,
    description: 'Largest imageUrl body; enforced while streaming.',
  },
  imageFetchConcurrency: {
    kind: 'int',
    default: 32,
    min: 1,
    max: 10_000,
    description:
      'imageUrl downloads in flight on one node (a request joining a download of the same URL, or served from the short image cache, does not count); past it a card that needs a new one gets 503 with Retry-After.',
  },
  imageFetchConcurrencyPerAccount: {
    kind: 'int',
    default: 4,
    min: 1,
    max: 10_000,
    description:
      'imageUrl downloads in flight started by one account on one node; past it that account gets 429 with Retry-After.',
  },
  imageFetchMemoryBytes: {
    kind: 'int',
    default: 128 * MiB,
    min: 1 * MiB,
    max: 64 * 1024 * MiB,
    description:
      'Bytes of imageUrl bodies one node holds at once, being downloaded or waiting for their render; a download that would pass it stops and its card gets 503 with Retry-After.',
  },
  imageMaxPixels: {
    kind: 'int',
    default: 25_000_000,
    min: 10_000,
    max: 268_402_689,
    description: 'Largest decoded imageUrl size in pixels (guards against decompression bombs).',
  },
  imageCacheTtlSeconds: {
    kind: 'int',
    default: 600,
    min: 0,
    max: 86_400,
    description: 'How long fetched imageUrl bytes are reused before they are fetched again.',
  },
  chromiumPath: {
    kind: 'string',
    // Debian's chromium-headless-shell, the binary itself: Chromium's build for automation (what
    // Playwright runs headless by default), measured here against the full browser: captures
    // about twice as fast, less than half the memory. Debian's /usr/bin/chromium-headless-shell
    // script is skipped because it runs the browser as a child of `sh` instead of exec'ing it.
    default: '/usr/lib/chromium/chromium-headless-shell',
    description:
      "Chromium executable for GET /render/url. `npm start` installs Debian's chromium-headless-shell when this default is missing; if it still is, Debian's full browser (`/usr/bin/chromium`) is used when present, about half as fast. If no browser can be started, screenshots answer 503 and templates keep working.",
  },
  chromiumSandbox: {
    kind: 'enum',
    default: 'auto',
    values: ['auto', 'on', 'off'],
    description:
      "Chromium's own sandbox for the pages it renders. auto: on (as root, Chromium runs as CARDSHOT_CHROMIUM_USER), and off with a loud warning in the log, /readyz and `cardshot doctor` where the kernel does not allow it or, as root, that user does not exist. on: a browser without it is not started (screenshots answer 503). off: never.",
  },
  chromiumUser: {
    kind: 'string',
    default: 'cardshot-chromium',
    check: (v) =>
      /^[a-z_][a-z0-9_-]{0,31}$/.test(v) ? undefined : 'must be a user name (a-z, 0-9, _ and -)',
    description:
      'The unprivileged system user Chromium runs as when the service runs as root (Chromium refuses its sandbox as root). `npm start` as root creates it (a system user with no login; its home, /var/lib/cardshot-chromium for the default, holds fontconfig caches). Not used when the service itself runs as another user.',
  },
  screenshotConcurrency: {
    kind: 'int',
    default: Math.max(1, os.availableParallelism()),
    min: 1,
    max: 64,
    description:
      'Screenshots captured at once, each in its own browser context (default: the number of cores).',
  },
  screenshotQueueSize: {
    kind: 'int',
    default: 32,
    min: 0,
    max: 10_000,
    description: 'Screenshots that may wait for a slot; past it requests get 503 with Retry-After.',
  },
  screenshotTimeoutMs: {
    kind: 'int',
    default: 15_000,
    min: 500,
    max: 120_000,
    description:
      'Total time for one screenshot request (waiting for a slot, loading the page to waitUntil, capturing); past it 504.',
  },
  screenshotCacheTtlSeconds: {
    kind: 'int',
    default: 86_400,
    min: 0,
    max: 31_536_000,
    description:
      'How long a screenshot is served from the cache and may be cached downstream (max-age, s-maxage); 0 turns caching off.',
  },
  screenshotCacheShared: {
    kind: 'bool',
    default: false,
    description:
      'Share cached screenshots between accounts (single-tenant installs: one capture of a URL serves every key). Off by default: each account has its own cache, so no key holder learns from X-Cache, Age or a 304 whether another account captured a URL, at the cost of one capture per account.',
  },
  screenshotErrorTtlSeconds: {
    kind: 'int',
    default: 60,
    min: 0,
    max: 86_400,
    description:
      'Cache lifetime of a screenshot whose page answered other than 2xx: 4xx or 5xx, or a 3xx without a Location (it is rendered, not refused).',
  },
  screenshotMaxPageBytes: {
    kind: 'int',
    default: 64 * MiB,
    min: 1 * MiB,
    max: 4096 * MiB,
    description:
      'Bytes one screenshotted page may download and upload in all (every request and WebSocket it makes). Past it its connections are cut and it is captured as it stands.',
  },
  screenshotMaxPageMemoryBytes: {
    kind: 'int',
    default: 1024 * MiB,
    min: 0,
    max: 65536 * MiB,
    description:
      "Memory (resident) one screenshotted page's renderer process may use. Past it the renderer is ended and the request gets 502 (the page crashed its browser tab). The JavaScript heap alone is capped lower (512 MiB); this bounds what lies outside it: array buffers, canvases, images. 0 turns the check off.",
  },
  screenshotMaxBrowserMemoryBytes: {
    kind: 'int',
    default: 1024 * MiB,
    min: 0,
    max: 65536 * MiB,
    description:
      "Memory (resident) each of the browser's own processes (browser, GPU, utility) may use while screenshots run. A page's Blobs are kept in the browser process, outside its tab's limit: past this the pages in flight are ended (502, as for a crashed tab), and a browser that does not give the memory back within 3 s is replaced. 0 turns the check off.",
  },
  screenshotViewports: {
    kind: 'list',
    default: [],
    check: presetProblem,
    description:
      'Custom viewport presets besides og, desktop and mobile, as name=WIDTHxHEIGHT[@SCALE][:mobile], for example square=1080x1080,retina=1440x900@2.',
  },
  screenshotSpareContexts: {
    kind: 'int',
    default: 2,
    min: 0,
    max: 16,
    description:
      'Fresh browser contexts created ahead of demand (each used once, then closed), so a request skips the ~200 ms set-up.',
  },
  browserRecycleAfter: {
    kind: 'int',
    default: 500,
    min: 1,
    max: 1_000_000,
    description: 'Screenshots after which the browser is replaced by a fresh one (bounds slow leaks).',
  },
  // The screenshot options (issue 17): one block, to move whole into the screenshot group.
  screenshotMaxFullPageHeight: {
    kind: 'int',
    default: 16_384,
    min: 1000,
    max: 65_535,
    description:
      'Tallest full-page (fullPage=true) or element (selector=…) screenshot, in output pixels (CSS pixels × scale); a taller page is cut there and the answer says so with X-Full-Page-Truncated: true. WebP stops at 16,383 and AVIF at 16,384 whatever this says, and no screenshot has more than 40 megapixels.',
  },
} as const satisfies Record<string, Setting>;

export type Settings = typeof settings;
export type SettingKey = keyof Settings;

/** A setting's value type; an enum's is the union of its values ('auto' | 'on' | 'off'). */
type ValueOf<S> = S extends { kind: 'int' }
  ? number
  : S extends { kind: 'bool' }
    ? boolean
    : S extends { kind: 'list' }
      ? readonly string[]
      : S extends { kind: 'enum'; values: readonly (infer V)[] }
        ? V
        : string;

/** The validated, frozen configuration every module receives. */
export type Config = { readonly [K in SettingKey]: ValueOf<Settings[K]> };

/** The environment variable that sets `key`. */
export function envName(key: SettingKey): string {
  const s = settings[key] as Setting;
  return s.env ?? `CARDSHOT_${key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
}
